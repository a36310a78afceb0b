// The stacked chart: one band per process (or per command name when grouped), stacked
// in start order, the total as a line on top, optional MemAvailable, event ticks along
// the bottom and the pinned time as a vertical marker.
//
// uPlot draws the axes, the cursor and the selection. The bands are drawn by one uPlot
// series whose path builder fills, for each layer, the polygon between its cumulative
// top and the top of the layer below, over the points where the process is alive (plus
// one each side). That is what uPlot's `bands` would fill, but uPlot fills a band over
// every visible point and clips it with a second path, per band: with thousands of
// short-lived compiler processes that is thousands of full-width fills per frame, while
// this costs one segment per point a process is alive, and the series list stays the
// same size whatever is in view (no re-creating the chart on every zoom).
// Every line is drawn as steps: between two samples nothing was measured, so a value
// holds (steps.js says which way) instead of ramping to the next.
// Input (wheel, drag, clicks) lives in chart_input.js, the event ticks and the pinned
// marker in chart_overlay.js.

import uPlot from 'uplot';
import { kAxisFont, makeAxes } from './chart_axes.js';
import { attachInput } from './chart_input.js';
import { cpuCeiling, drawOverlay } from './chart_overlay.js';
import { layerColors } from './palette.js';
import { layerAt, layerSpan } from './stack.js';
import { stepIndex, stepSide, traceSteps, visibleStepMax } from './steps.js';

const kLayerEdgesMax = 300; // above this many layers in view, edges are only noise
const kTotalStroke = '#1f2328';
const kAvailableStroke = '#0969da';
// The total and MemAvailable as steps (steps.js): align 1 holds a value until the next
// point, -1 back to the previous one.
const kStepAfter = uPlot.paths.stepped({ align: 1 });
const kStepBefore = uPlot.paths.stepped({ align: -1 });

// Half the width of the longest label the x axis can end with (its end, to the ms), so
// that a label on the plot's right edge is never cut off ("1:00:0").
// Measured on a canvas of its own: uPlot keeps track of the font it set on its own.
let measureContext = null;
function rightPadding(u, time, startMs) {
  const end = u.scales.x.max;
  const label = time.atShort(startMs + Math.max(0, Number.isFinite(end) ? end : 0) * 1000, 3);
  if (!measureContext) measureContext = document.createElement('canvas').getContext('2d');
  measureContext.font = kAxisFont;
  return Math.max(12, Math.ceil(measureContext.measureText(label).width / 2) + 2);
}

function emptyFrame(metric = 'rss') {
  return { metric, exact: true, t: [], x: [], total: [], available: null, layers: [], cum: [] };
}

export class StackChart {
  // handlers: onHover(tMs|null, layer|null), onClick({t, layer, onPinned, count}),
  // onDoubleClick(), onView(view), onZoom(anchorMs, factor), onPan(fraction), onResize(),
  // onDrawn(frame), formatValue(value), timeFormat() (time_format.js), yTitle().
  // cpuCount: the machine's CPUs (null when unknown), the CPU chart's ceiling.
  constructor(container, { startMs, view, cpuCount, handlers }) {
    this.container = container;
    this.startMs = startMs;
    this.cpuCount = cpuCount;
    this.view = view;
    this.handlers = handlers;
    this.frame = emptyFrame();
    this.unit = 'bytes';
    this.litIds = null;
    this.litKeys = new Set();
    this.pinnedT = null;
    this.marks = { flags: [], failed: [], ended: [] };
    this.flagTimes = [];
    this.drawnFlags = [];
    this.showAvailable = false;
    this.colors = new Map();
    this.tip = container.querySelector('.chart-tip');
    this.u = new uPlot(this.options(), this.uplotData(), container.querySelector('.chart-plot'));
    attachInput(this);
    new ResizeObserver(() => this.resize()).observe(container);
  }

  options() {
    const size = this.plotSize();
    return {
      width: size.width,
      height: size.height,
      // Headroom above the peak, in px (the y max stays the peak); on the right, room
      // for half the last time label, which is centred on its tick.
      padding: [14, (u) => rightPadding(u, this.handlers.timeFormat(), this.startMs), 0, 0],
      legend: { show: false },
      scales: {
        // Fixed by applyView(); the initial span keeps uPlot's first draw (no data yet) sane.
        x: { time: false, auto: false, range: (u, min, max) => [min, max], min: 0, max: (this.view.to - this.view.from) / 1000 },
        y: { auto: false, range: (u, min, max) => [min, max], min: 0, max: 1024 },
      },
      axes: makeAxes(() => this.unit, {
        timeOf: () => this.handlers.timeFormat(),
        startMs: this.startMs,
        xTitle: () => this.handlers.timeFormat().title,
        yTitleOf: () => this.handlers.yTitle(),
      }),
      cursor: {
        y: false,
        points: { show: false },
        drag: { x: true, y: false, setScale: false },
        // uPlot's double-click resets to the data's range; ours resets to the recording.
        bind: { dblclick: () => null },
      },
      series: [
        {},
        {
          label: 'stack',
          stroke: 'rgba(0,0,0,0.25)',
          width: 1,
          paths: (u, seriesIdx, idx0, idx1) => this.stackPaths(u, idx0, idx1),
          points: { show: false },
        },
        {
          label: 'total',
          stroke: kTotalStroke,
          width: 1.5,
          points: { show: false },
          paths: (u, seriesIdx, idx0, idx1) => (this.side() === 'after' ? kStepAfter : kStepBefore)(u, seriesIdx, idx0, idx1),
        },
        { label: 'MemAvailable', stroke: kAvailableStroke, width: 1.25, dash: [5, 3], show: false, points: { show: false }, paths: kStepAfter },
      ],
      hooks: {
        setCursor: [(u) => this.onCursor(u)],
        setSelect: [(u) => this.onSelect(u)],
        setScale: [(u, key) => key === 'x' && this.onScaleX(u)],
        draw: [(u) => this.overlay(u)],
      },
    };
  }

  plotSize() {
    return { width: Math.max(200, this.container.clientWidth), height: Math.max(160, this.container.clientHeight) };
  }

  resize() {
    const size = this.plotSize();
    if (size.width === this.u.width && size.height === this.u.height) return;
    this.u.setSize(size);
    if (this.handlers.onResize) this.handlers.onResize();
  }

  // Plot width in CSS px: how many points are worth fetching.
  plotWidth() {
    return Math.max(50, Math.round(this.u.over.clientWidth || this.u.bbox.width / devicePixelRatio));
  }

  uplotData() {
    const f = this.frame;
    const available = f.available && this.showAvailable ? f.available : f.x.map(() => null);
    return [f.x, f.total, f.total, available];
  }

  setFrame(frame, unit) {
    this.frame = frame;
    this.unit = unit;
    this.updateLit();
    this.u.setData(this.uplotData(), false);
    this.syncAvailable();
    this.applyView();
  }

  setView(view) {
    this.view = view;
    this.applyView();
  }

  applyView() {
    const xMin = (this.view.from - this.startMs) / 1000;
    const xMax = (this.view.to - this.startMs) / 1000;
    const yMax = this.yMax(xMin, xMax);
    this.u.batch(() => {
      this.u.setScale('x', { min: xMin, max: xMax });
      this.u.setScale('y', { min: 0, max: yMax });
    });
  }

  // How the metric's samples hold (steps.js).
  side() {
    return stepSide(this.unit);
  }

  // The top of the y axis: the highest total the steps show in view (the recorded peak
  // when zoomed out, and the step entering from outside when zoomed in), or
  // MemAvailable's when that line is shown. Never 0, so the axis has a span.
  yMax(xMin, xMax) {
    const f = this.frame;
    let max = visibleStepMax(f.x, f.total, xMin, xMax, this.side());
    if (this.showAvailable && f.available) max = Math.max(max, visibleStepMax(f.x, f.available, xMin, xMax, 'after'));
    const ceiling = this.ceiling();
    // The CPU ceiling is brought into view when the stack reaches a quarter of it: near
    // it, how far from saturating the machine matters; far below, it would flatten the
    // bands, and its value is in the axis title's hover (chart_overlay.js).
    if (ceiling != null && max >= ceiling / 4) max = Math.max(max, ceiling);
    if (max > 0) return max;
    return this.unit === 'percent' ? 1 : 1024;
  }

  // The machine's CPU count as a CPU percent (100% a core), for the CPU metric only.
  ceiling() {
    return this.unit === 'percent' ? cpuCeiling(this.cpuCount) : null;
  }

  // A change of clock: the axis labels and their width follow.
  redrawAxes() {
    this.u.redraw(false, true);
  }

  setShowAvailable(show) {
    this.showAvailable = show;
    this.u.setData(this.uplotData(), false);
    this.syncAvailable();
    this.applyView();
  }

  // The MemAvailable line shows when asked for and the metric has it (not CPU).
  syncAvailable() {
    const show = this.showAvailable && Boolean(this.frame.available);
    if (this.u.series[3].show !== show) this.u.setSeries(3, { show });
  }

  setHighlight(ids) {
    this.litIds = ids && ids.length ? new Set(ids) : null;
    this.updateLit();
    this.u.redraw(true, false);
  }

  updateLit() {
    this.litKeys = new Set();
    if (!this.litIds) return;
    for (const layer of this.frame.layers) {
      if (layer.ids.some((id) => this.litIds.has(id))) this.litKeys.add(layer.key);
    }
  }

  setPinned(tMs) {
    this.pinnedT = tMs;
    this.u.redraw(false, false);
  }

  setMarks(marks) {
    this.marks = marks;
    this.flagTimes = marks.flags.map((flag) => flag.t);
    this.u.redraw(false, false);
  }

  colorsOf(key) {
    let colors = this.colors.get(key);
    if (!colors) {
      colors = layerColors(key);
      this.colors.set(key, colors);
    }
    return colors;
  }

  // All bands as a Map fillStyle -> Path2D (uPlot fills each entry with its style), and
  // their top edges the same way.
  stackPaths(u, idx0, idx1) {
    const { x, cum, layers } = this.frame;
    const fills = new Map();
    const strokes = new Map();
    const n = x.length;
    if (n === 0) return { stroke: strokes, fill: fills, clip: null, band: null, gaps: null, flags: 0 };
    const xs = new Float64Array(n);
    for (let i = Math.max(0, idx0); i <= Math.min(n - 1, idx1); i++) xs[i] = u.valToPos(x[i], 'x', true);
    const yScale = u.scales.y;
    const top = u.bbox.top;
    const height = u.bbox.height;
    const ySpan = yScale.max - yScale.min || 1;
    const ys = (v) => top + height * (1 - (v - yScale.min) / ySpan);
    const inView = layers.filter((layer) => layer.offset <= idx1 && layer.offset + layer.values.length - 1 >= idx0).length;
    const withEdges = inView <= kLayerEdgesMax;
    const zero = new Float64Array(n);
    const side = this.side();
    let vertices = 0;
    layers.forEach((layer, k) => {
      const [first, last] = layerSpan(layer, n, idx0, idx1);
      if (first > last) return;
      const upper = cum[k];
      const lower = k > 0 ? cum[k - 1] : zero;
      const colors = this.colorsOf(layer.key);
      const lit = !this.litIds || this.litKeys.has(layer.key);
      const fillStyle = lit ? colors.fill : colors.dim;
      const path = fills.get(fillStyle) || new Path2D();
      fills.set(fillStyle, path);
      vertices += traceSteps(path, xs, ys, upper, first, last, side, false, true);
      vertices += traceSteps(path, xs, ys, lower, first, last, side, true, false);
      path.closePath();
      if (!withEdges && !(this.litIds && lit)) return;
      const strokeStyle = lit ? colors.stroke : colors.dim;
      const edge = strokes.get(strokeStyle) || new Path2D();
      strokes.set(strokeStyle, edge);
      vertices += traceSteps(edge, xs, ys, upper, first, last, side, false, true);
    });
    // How much drawing the bands cost: bounded by the bands drawn (the top N) times the
    // points, whatever the number of processes (the chart's dataset says it, for tests).
    this.drawnVertices = vertices;
    return { stroke: strokes, fill: fills, clip: null, band: null, gaps: null, flags: 0 };
  }

  // The point whose step is drawn at a horizontal position of the plot (CSS px), or -1
  // with no data. Within a pixel of a point counts as on it: a click on a tick's pixel
  // picks that tick, wherever the pixel rounds.
  stepIndexAt(left) {
    const xVal = this.u.posToVal(left, 'x');
    const pixel = Math.abs(this.u.posToVal(left + 1, 'x') - xVal);
    return stepIndex(this.frame.x, xVal, this.side(), pixel);
  }

  // The layer under a point of the plot (CSS px from its top-left), or -1: the band
  // between the cumulative tops of the step drawn there.
  layerUnder(left, top) {
    const { x, cum, layers } = this.frame;
    if (x.length === 0 || layers.length === 0) return -1;
    const i = this.stepIndexAt(left);
    const yVal = this.u.posToVal(top, 'y');
    return layerAt((k) => cum[k][i], layers.length, yVal);
  }

  // The value of layer k at point i (its band's height there).
  layerValue(k, i) {
    const { cum } = this.frame;
    return cum[k][i] - (k > 0 ? cum[k - 1][i] : 0);
  }

  onCursor(u) {
    const idx = u.cursor.left == null || u.cursor.left < 0 ? -1 : this.stepIndexAt(u.cursor.left);
    if (idx < 0) {
      this.hideTip();
      this.handlers.onHover(null, null);
      return;
    }
    const k = this.layerUnder(u.cursor.left, u.cursor.top);
    this.showTip(k, idx, u.cursor.left, u.cursor.top);
    this.handlers.onHover(this.frame.t[idx], k >= 0 ? this.frame.layers[k] : null);
  }

  showTip(k, idx, left, top) {
    if (!this.tip) return;
    if (k < 0) {
      this.hideTip();
      return;
    }
    const layer = this.frame.layers[k];
    this.tip.hidden = false;
    this.tip.querySelector('.tip-time').textContent = this.handlers.timeFormat().at(this.frame.t[idx]);
    this.tip.querySelector('.tip-label').textContent = layer.label;
    this.tip.querySelector('.tip-value').textContent = this.handlers.formatValue(this.layerValue(k, idx));
    const over = this.u.over;
    const x = over.offsetLeft + left;
    const y = over.offsetTop + top;
    const flip = x + 16 + this.tip.offsetWidth > this.container.clientWidth;
    this.tip.style.left = `${flip ? x - 12 - this.tip.offsetWidth : x + 14}px`;
    this.tip.style.top = `${Math.max(0, y - 28)}px`;
  }

  hideTip() {
    if (this.tip) this.tip.hidden = true;
  }

  onSelect(u) {
    const { left, width } = u.select;
    if (width < 4) return;
    const from = this.startMs + u.posToVal(left, 'x') * 1000;
    const to = this.startMs + u.posToVal(left + width, 'x') * 1000;
    u.setSelect({ left: 0, top: 0, width: 0, height: 0 }, false);
    this.handlers.onView({ from, to });
  }

  // The x scale set from outside (a script holding the uPlot instance, as the test hook
  // allows): adopt it as the view, so the y range and the refetch follow. Deferred,
  // because this runs inside uPlot's own scale update.
  onScaleX(u) {
    const from = this.startMs + u.scales.x.min * 1000;
    const to = this.startMs + u.scales.x.max * 1000;
    if (Math.abs(from - this.view.from) < 0.5 && Math.abs(to - this.view.to) < 0.5) return;
    queueMicrotask(() => this.handlers.onView({ from, to }));
  }

  // Drawn after the series: event ticks and the pinned marker (chart_overlay.js).
  overlay(u) {
    this.drawnFlags = drawOverlay(u, {
      toX: (tMs) => u.valToPos((tMs - this.startMs) / 1000, 'x', true),
      view: this.view,
      marks: this.marks,
      flagTimes: this.flagTimes,
      pinnedT: this.pinnedT,
      ceiling: this.ceiling(),
      cpuCount: this.cpuCount,
    });
    this.publish();
  }

  // After every draw: what is on screen, for tests and for anyone reading the DOM.
  publish() {
    const data = this.container.dataset;
    data.drawnPoints = String(this.frame.t.length);
    data.layers = String(this.frame.layers.length);
    data.metric = this.frame.metric;
    data.grouped = String(Boolean(this.frame.grouped));
    data.yMax = String(this.u.scales.y.max);
    data.drawnVertices = String(this.drawnVertices ?? 0);
    const ceiling = this.ceiling();
    if (ceiling != null && ceiling <= this.u.scales.y.max) data.ceiling = String(ceiling);
    else delete data.ceiling;
    this.handlers.onDrawn(this.frame);
  }
}
