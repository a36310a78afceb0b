// What the chart draws over the bands, in canvas pixels, after each redraw: process ends
// along the bottom (failed ones red and taller, the others faint and short), markers,
// signals and OOM kills as lines through the plot, markers (canopy mark) with their text
// as a label at the top, and the pinned time as a dark marker with a handle at the top.
// On the CPU chart, the machine's CPU count as a ceiling line (100% per CPU).
// Only what falls inside the view is drawn. Log and output lines are never drawn here:
// there can be millions.

import { firstLine } from './events_model.js';
import { lowerBound, upperBound } from './search.js';

const kLabelChars = 28;
const kFlagStyles = {
  mark: { color: '#8250df', alpha: 0.8, width: 1.5, dash: [4, 2] },
  signal: { color: '#bc4c00', alpha: 0.6, width: 1, dash: [2, 2] },
  oom: { color: '#cf222e', alpha: 0.9, width: 1.5, dash: [] },
};

// options: toX(tMs) -> canvas x, view {from, to}, marks {flags, failed, ended},
// flagTimes (the flags' times), pinnedT, ceiling (CPU percent or null), cpuCount. Returns the flags drawn: {t, kind, x (CSS px
// from the plot's left), label (null when it did not fit)}.
export function drawOverlay(u, { toX, view, marks, flagTimes, pinnedT, ceiling = null, cpuCount = null }) {
  const ctx = u.ctx;
  const { left, top, width, height } = u.bbox;
  const bottom = top + height;
  const ratio = devicePixelRatio || 1;
  ctx.save();
  ctx.beginPath();
  ctx.rect(left, top, width, height);
  ctx.clip();
  if (ceiling != null && ceiling <= u.scales.y.max) drawCeiling(ctx, Math.round(u.valToPos(ceiling, 'y', true)) + 0.5, left, width, cpuCount, ratio);
  drawTicks(ctx, marks.ended, view, toX, bottom, 4 * ratio, 'rgba(87, 96, 106, 0.35)', ratio);
  drawTicks(ctx, marks.failed, view, toX, bottom, 9 * ratio, '#cf222e', 1.5 * ratio);
  const drawn = drawFlags(ctx, marks.flags, flagTimes, view, toX, top, bottom, ratio);
  if (pinnedT != null) drawPin(ctx, Math.round(toX(pinnedT)) + 0.5, top, bottom, ratio);
  ctx.restore();
  return drawn.map((flag) => ({ ...flag, x: (flag.x - left) / ratio }));
}

// A marker's text, short enough for a label.
export function markLabel(text) {
  const { line } = firstLine(text);
  return line.length > kLabelChars ? `${line.slice(0, kLabelChars - 1)}…` : line;
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
  const drawn = [];
  let labelsEnd = -Infinity; // labels never overlap: one that would is left out
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
    let label = null;
    if (flags[i].kind === 'mark') {
      label = markLabel(flags[i].text);
      const end = label ? drawLabel(ctx, label, x, top, style.color, ratio, labelsEnd) : null;
      if (end == null) label = null;
      else labelsEnd = end;
    }
    drawn.push({ t: flags[i].t, kind: flags[i].kind, x, label });
  }
  return drawn;
}

// A filled tag with the text, its left edge on the line; returns its right edge, or null
// when it would overlap the previous label.
function drawLabel(ctx, text, x, top, color, ratio, previousEnd) {
  ctx.font = `${10 * ratio}px system-ui, sans-serif`;
  const width = ctx.measureText(text).width + 8 * ratio;
  const height = 14 * ratio;
  if (x < previousEnd + 2 * ratio) return null;
  ctx.fillStyle = color;
  ctx.fillRect(x, top, width, height);
  ctx.fillStyle = '#ffffff';
  ctx.textBaseline = 'middle';
  ctx.fillText(text, x + 4 * ratio, top + height / 2);
  return x + width;
}

// The machine's CPU count times 100%: no stack of CPU bands can rise above it.
export function cpuCeiling(cpuCount) {
  return cpuCount > 0 ? cpuCount * 100 : null;
}

function drawCeiling(ctx, y, left, width, cpuCount, ratio) {
  ctx.strokeStyle = '#cf222e';
  ctx.globalAlpha = 0.7;
  ctx.lineWidth = 1 * ratio;
  ctx.setLineDash([6 * ratio, 3 * ratio]);
  ctx.beginPath();
  ctx.moveTo(left, y);
  ctx.lineTo(left + width, y);
  ctx.stroke();
  ctx.setLineDash([]);
  ctx.globalAlpha = 1;
  ctx.fillStyle = '#cf222e';
  ctx.font = `${11 * ratio}px system-ui, sans-serif`;
  ctx.textBaseline = 'top';
  ctx.textAlign = 'right';
  ctx.fillText(`${cpuCount} ${cpuCount === 1 ? 'CPU' : 'CPUs'}`, left + width - 4 * ratio, y + 2 * ratio);
  ctx.textAlign = 'left';
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
