// What the chart draws over the bands, in canvas pixels, after each redraw: process ends
// along the bottom (failed ones red and taller, the others faint and short), markers,
// signals and OOM kills as lines through the plot, and the pinned time as a dark marker
// with a handle at the top. Only what falls inside the view is drawn.

import { lowerBound, upperBound } from './search.js';

const kFlagStyles = {
  mark: { color: '#8250df', alpha: 0.55, width: 1, dash: [3, 3] },
  signal: { color: '#bc4c00', alpha: 0.6, width: 1, dash: [2, 2] },
  oom: { color: '#cf222e', alpha: 0.9, width: 1.5, dash: [] },
};

// options: toX(tMs) -> canvas x, view {from, to}, marks {flags, failed, ended},
// flagTimes (the flags' times), pinnedT.
export function drawOverlay(u, { toX, view, marks, flagTimes, pinnedT }) {
  const ctx = u.ctx;
  const { left, top, width, height } = u.bbox;
  const bottom = top + height;
  const ratio = devicePixelRatio || 1;
  ctx.save();
  ctx.beginPath();
  ctx.rect(left, top, width, height);
  ctx.clip();
  drawTicks(ctx, marks.ended, view, toX, bottom, 4 * ratio, 'rgba(87, 96, 106, 0.35)', ratio);
  drawTicks(ctx, marks.failed, view, toX, bottom, 9 * ratio, '#cf222e', 1.5 * ratio);
  drawFlags(ctx, marks.flags, flagTimes, view, toX, top, bottom, ratio);
  if (pinnedT != null) drawPin(ctx, Math.round(toX(pinnedT)) + 0.5, top, bottom, ratio);
  ctx.restore();
}

function drawTicks(ctx, times, view, toX, bottom, size, style, lineWidth) {
  const first = lowerBound(times, view.from);
  const last = upperBound(times, view.to);
  if (first >= last) return;
  ctx.strokeStyle = style;
  ctx.lineWidth = lineWidth;
  ctx.beginPath();
  for (let i = first; i < last; i++) {
    const x = Math.round(toX(times[i])) + 0.5;
    ctx.moveTo(x, bottom);
    ctx.lineTo(x, bottom - size);
  }
  ctx.stroke();
}

function drawFlags(ctx, flags, flagTimes, view, toX, top, bottom, ratio) {
  const last = upperBound(flagTimes, view.to);
  for (let i = lowerBound(flagTimes, view.from); i < last; i++) {
    const style = kFlagStyles[flags[i].kind] || kFlagStyles.mark;
    const x = Math.round(toX(flags[i].t)) + 0.5;
    ctx.strokeStyle = style.color;
    ctx.globalAlpha = style.alpha;
    ctx.lineWidth = style.width * ratio;
    ctx.setLineDash(style.dash.map((d) => d * ratio));
    ctx.beginPath();
    ctx.moveTo(x, top);
    ctx.lineTo(x, bottom);
    ctx.stroke();
    ctx.setLineDash([]);
    ctx.globalAlpha = 1;
    ctx.fillStyle = style.color;
    ctx.beginPath();
    ctx.moveTo(x, bottom);
    ctx.lineTo(x - 4 * ratio, bottom - 7 * ratio);
    ctx.lineTo(x + 4 * ratio, bottom - 7 * ratio);
    ctx.fill();
  }
}

function drawPin(ctx, x, top, bottom, ratio) {
  ctx.strokeStyle = '#1f2328';
  ctx.lineWidth = 1.5 * ratio;
  ctx.beginPath();
  ctx.moveTo(x, top);
  ctx.lineTo(x, bottom);
  ctx.stroke();
  ctx.fillStyle = '#1f2328';
  ctx.beginPath();
  ctx.moveTo(x - 5 * ratio, top);
  ctx.lineTo(x + 5 * ratio, top);
  ctx.lineTo(x, top + 6 * ratio);
  ctx.fill();
}
