// Pure maths of the chart's view window [from, to] (ms) inside the recording [min, max]:
// zoom around an anchor, pan by a fraction, clamp. The chart calls these on wheel, keys
// and drags, so that every way of moving ends in the same clamped window.

// The recording's span [min, max] the view is clamped to, as {from, to}: meta's start
// and end, else what the processes cover (never empty: at least a second).
export function recordingBounds(meta, processes) {
  const firsts = processes.map((p) => p.first_ms).filter((t) => t != null);
  const lasts = processes.map((p) => p.last_ms).filter((t) => t != null);
  const from = meta.start_ms ?? (firsts.length ? Math.min(...firsts) : 0);
  let to = meta.end_ms ?? (lasts.length ? Math.max(...lasts) : from + 1000);
  if (!(to > from)) to = from + 1000;
  return { from, to };
}

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

// The lifetime of a set of processes: from the first sample of any to the last of any
// (first_ms .. last_ms), or null when none was sampled.
export function lifetimeOf(ids, processById) {
  let from = Infinity;
  let to = -Infinity;
  for (const id of ids) {
    const p = processById.get(id);
    if (!p || p.first_ms == null || p.last_ms == null) continue;
    from = Math.min(from, p.first_ms);
    to = Math.max(to, p.last_ms);
  }
  return Number.isFinite(from) ? { from, to } : null;
}

// Below this share of the view, a highlighted lifetime is a sliver (a tenth of the
// chart: a band too thin to find or point at) or nothing on screen.
export const kSliverShare = 0.1;

// The view to show a highlighted lifetime in: unchanged (the same object) when it is in
// view and wide enough to see; else the lifetime with a fifth of its length as margin on
// each side (at least a tick's worth: `minMarginMs`), clamped to the recording.
export function viewForLifetime(view, life, min, max, minMarginMs = 0) {
  if (!life) return view;
  const span = view.to - view.from;
  const inView = life.from >= view.from && life.to <= view.to;
  if (inView && life.to - life.from >= span * kSliverShare) return view;
  const margin = Math.max((life.to - life.from) / 5, minMarginMs);
  return clampView(life.from - margin, life.to + margin, min, max);
}
