// Lanes: the process tree as a timeline, as Perfetto draws a trace's threads. In lanes
// mode each row of the tree panel shows its process's life over the chart's visible
// range, a bar coloured by the chart's metric (darker: more), so that the order and the
// parallelism of hundreds of processes read at a glance, nested as the tree nests them.
// The figures are the series the chart has (GET /api/series): no request of their own,
// and the same steps (steps.js) the chart draws.

import { stepSide } from './steps.js';

const kMinBarPx = 2; // a process shorter than a pixel still shows

// A process's life in ms: from its first sight (or start) to its last sight, its end,
// or the recording's end when it ran to the end.
export function lifeSpan(p, recordingEndMs) {
  const from = p.first_ms ?? p.start_ms;
  const to = p.end_ms ?? p.last_ms ?? recordingEndMs;
  return { from, to: Math.max(from, to) };
}

// Pixels [x0, x1) of a time span in a lane `width` px wide showing view; null when the
// span is outside the view. At least kMinBarPx wide.
export function spanPixels(from, to, view, width) {
  if (to < view.from || from > view.to || !(view.to > view.from)) return null;
  const scale = width / (view.to - view.from);
  let x0 = Math.max(0, (from - view.from) * scale);
  let x1 = Math.min(width, (to - view.from) * scale);
  if (x1 - x0 < kMinBarPx) {
    x1 = Math.min(width, x0 + kMinBarPx);
    x0 = Math.max(0, x1 - kMinBarPx);
  }
  return [x0, x1];
}

// What colours a lane: the largest value of one process in the series (memory), or one
// core (CPU, at least 100%), so that lanes compare with each other.
export function laneScale(series, unit) {
  let max = 0;
  for (const slice of series.series) for (const v of slice.values) if (v > max) max = v;
  return unit === 'percent' ? Math.max(100, max) : max;
}

// The coloured segments of one process's lane: each sample's step (a memory figure holds
// until the next sample, a CPU figure back to the previous one), within the process's
// life, as {x0, x1, share} with share = value / scale in [0, 1].
export function laneSegments(series, slice, life, view, width, scale, unit) {
  const segments = [];
  if (!slice || !(scale > 0)) return segments;
  const side = stepSide(unit);
  const t = series.t;
  for (let j = 0; j < slice.values.length; j++) {
    const k = slice.offset + j;
    const from = side === 'after' ? t[k] : Math.max(life.from, k > 0 ? t[k - 1] : life.from);
    const to = side === 'after' ? Math.min(life.to, k + 1 < t.length ? t[k + 1] : life.to) : t[k];
    if (!(to > from)) continue;
    const px = spanPixels(from, to, view, width);
    if (!px) continue;
    segments.push({ x0: px[0], x1: px[1], share: Math.min(1, Math.max(0, slice.values[j] / scale)) });
  }
  return segments;
}

// Light to dark: blue for memory, orange for CPU.
export function laneColor(share, unit) {
  const hue = unit === 'percent' ? 28 : 212;
  const lightness = 92 - 57 * share;
  return `hsl(${hue}, 70%, ${lightness.toFixed(1)}%)`;
}

// Draws one lane on its canvas: the life as a grey bar, the segments over it.
// lanes: {series, sliceById, view, unit, scale, endMs}.
export function drawLane(canvas, p, lanes) {
  const ratio = window.devicePixelRatio || 1;
  const width = canvas.clientWidth;
  const height = canvas.clientHeight;
  if (canvas.width !== Math.round(width * ratio) || canvas.height !== Math.round(height * ratio)) {
    canvas.width = Math.round(width * ratio);
    canvas.height = Math.round(height * ratio);
  }
  const ctx = canvas.getContext('2d');
  ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
  ctx.clearRect(0, 0, width, height);
  const life = lifeSpan(p, lanes.endMs);
  const bar = spanPixels(life.from, life.to, lanes.view, width);
  canvas.dataset.life = bar ? `${bar[0].toFixed(1)},${bar[1].toFixed(1)}` : '';
  if (!bar) return;
  const top = 3;
  const h = height - 6;
  // Whole pixels: segments that meet within a pixel would leave a lighter seam.
  const fill = (x0, x1) => ctx.fillRect(Math.floor(x0), top, Math.max(1, Math.ceil(x1) - Math.floor(x0)), h);
  ctx.fillStyle = '#d0d7de';
  fill(bar[0], bar[1]);
  const slice = lanes.sliceById.get(p.id);
  for (const s of laneSegments(lanes.series, slice, life, lanes.view, width, lanes.scale, lanes.unit)) {
    ctx.fillStyle = laneColor(s.share, lanes.unit);
    fill(s.x0, s.x1);
  }
}
