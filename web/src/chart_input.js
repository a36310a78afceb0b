// Mouse input on the chart, turned into intents for main.js: a click (pin a time and
// pick the band under the cursor), a double-click (reset the zoom), the wheel (zoom
// around the cursor; with Shift, or sideways, pan). Drag-to-zoom is uPlot's selection,
// handled in chart.js. The plot is focusable so the arrow keys can pan it.

import { wheelFactor } from './zoom.js';

const kClickSlopPx = 4; // a press that moved less than this is a click, not a drag
const kPinHitPx = 5; // how close to the pinned marker a click counts as on it

export function attachInput(chart) {
  const over = chart.u.over;
  over.tabIndex = 0;
  over.setAttribute('role', 'img');
  over.setAttribute('aria-label', 'Stacked chart: drag to zoom, wheel to zoom, Shift+wheel or arrow keys to pan, click to pin a time');
  let down = null;
  over.addEventListener('mousedown', (e) => {
    down = e.button === 0 ? { x: e.clientX, y: e.clientY } : null;
  });
  over.addEventListener('mouseup', (e) => {
    if (!down) return;
    const moved = Math.hypot(e.clientX - down.x, e.clientY - down.y);
    down = null;
    if (moved < kClickSlopPx) click(chart, e);
  });
  over.addEventListener('dblclick', () => chart.handlers.onDoubleClick());
  over.addEventListener('wheel', (e) => wheel(chart, e), { passive: false });
}

function click(chart, e) {
  const u = chart.u;
  const rect = u.over.getBoundingClientRect();
  const left = e.clientX - rect.left;
  const top = e.clientY - rect.top;
  const idx = chart.stepIndexAt(left);
  const t = chart.frame.t[idx];
  if (t == null) return;
  const k = chart.layerUnder(left, top);
  let onPinned = false;
  if (chart.pinnedT != null) {
    const pinnedLeft = u.valToPos((chart.pinnedT - chart.startMs) / 1000, 'x');
    onPinned = Math.abs(pinnedLeft - left) <= kPinHitPx;
  }
  chart.handlers.onClick({ t, layer: k >= 0 ? chart.frame.layers[k] : null, onPinned, count: e.detail });
}

function wheel(chart, e) {
  e.preventDefault();
  const u = chart.u;
  const rect = u.over.getBoundingClientRect();
  const sideways = Math.abs(e.deltaX) > Math.abs(e.deltaY);
  if (e.shiftKey || sideways) {
    // Shift+wheel: browsers report it as deltaY, some (macOS) move it to deltaX.
    const delta = sideways ? e.deltaX : e.deltaY;
    const pixels = e.deltaMode === 1 ? delta * 33 : e.deltaMode === 2 ? delta * rect.width : delta;
    chart.handlers.onPan(pixels / Math.max(1, rect.width));
    return;
  }
  const anchor = chart.startMs + u.posToVal(e.clientX - rect.left, 'x') * 1000;
  chart.handlers.onZoom(anchor, wheelFactor(e.deltaY, e.deltaMode));
}
