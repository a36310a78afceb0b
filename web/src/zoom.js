// Pure maths of the chart's view window [from, to] (ms) inside the recording [min, max]:
// zoom around an anchor, pan by a fraction, clamp. The chart calls these on wheel, keys
// and drags, so that every way of moving ends in the same clamped window.

// Never zoom in past this many ms: below a couple of ticks nothing more can be seen.
export const kMinSpanMs = 20;

export function clampView(from, to, min, max) {
  const full = max - min;
  const span = Math.min(Math.max(to - from, Math.min(kMinSpanMs, full)), full);
  if (!(span > 0)) return { from: min, to: max };
  let start = from + ((to - from) - span) / 2;
  if (start < min) start = min;
  if (start + span > max) start = max - span;
  return { from: start, to: start + span };
}

// factor < 1 zooms in, > 1 zooms out; the anchor (ms) stays under the cursor.
export function zoomAround(view, anchor, factor, min, max) {
  const full = max - min;
  const span = Math.min(Math.max((view.to - view.from) * factor, Math.min(kMinSpanMs, full)), full);
  const ratio = view.to > view.from ? (anchor - view.from) / (view.to - view.from) : 0.5;
  const from = anchor - ratio * span;
  return clampView(from, from + span, min, max);
}

// fraction > 0 moves right (later), by that share of the visible span.
export function panBy(view, fraction, min, max) {
  const shift = (view.to - view.from) * fraction;
  return clampView(view.from + shift, view.to + shift, min, max);
}

// The window of the same span (when it fits) that shows t, or the view itself if it
// already does; used when an event line outside the view is clicked.
export function revealTime(view, t, min, max) {
  if (t >= view.from && t <= view.to) return view;
  const span = view.to - view.from;
  return clampView(t - span / 2, t + span / 2, min, max);
}

// The wheel's zoom factor: one notch (deltaY 100 px, or 3 lines) zooms by 1.25. Trackpads
// send many small deltas, which compose to the same total.
export function wheelFactor(deltaY, deltaMode) {
  const pixels = deltaMode === 1 ? deltaY * 33 : deltaMode === 2 ? deltaY * 400 : deltaY;
  return Math.pow(1.25, Math.max(-5, Math.min(5, pixels / 100)));
}

export function isFullView(view, min, max) {
  return view.from <= min && view.to >= max;
}
