// How a sample's value holds over time: the chart draws it so, its hover and clicks read
// it so, and the information panel picks the sample so. Between two samples nothing was
// measured, so the chart draws steps, never ramps:
// - memory is a level read at its sample: it holds until the next ('after');
// - CPU is the rate over the interval ending at its sample: it holds back to the
//   previous one ('before').

import { lowerBound, upperBound } from './search.js';

export function stepSide(unit) {
  return unit === 'percent' ? 'before' : 'after';
}

// Which sample is in effect between two, for a step side: the one before the time for
// 'after' steps, the one after it for 'before' steps (GET /api/at's `side`).
export function sampleSide(side) {
  return side === 'after' ? 'before' : 'after';
}

// The index of the sample at or before xVal ('before'), or at or after it ('after'); a
// point within `slack` of xVal counts as on it (a click on a sample's pixel). Clamped to
// the array; -1 for an empty one.
export function sampleIndex(x, xVal, which, slack = 0) {
  const n = x.length;
  if (n === 0) return -1;
  const i = which === 'before' ? upperBound(x, xVal + slack) - 1 : lowerBound(x, xVal - slack);
  return Math.min(Math.max(i, 0), n - 1);
}

// The index of the sample whose step is drawn at xVal (see sampleIndex).
export function stepIndex(x, xVal, side, slack = 0) {
  return sampleIndex(x, xVal, sampleSide(side), slack);
}

// The vertices of the step line through points first..last, as [point of x, point of y]
// pairs: the y of a 'after' step is the earlier point's until the next x, of a 'before'
// step the later point's from the earlier x.
export function stepVertices(first, last, side) {
  const vertices = [[first, first]];
  for (let i = first + 1; i <= last; i++) {
    vertices.push(side === 'after' ? [i, i - 1] : [i - 1, i]);
    vertices.push([i, i]);
  }
  return vertices;
}

// Adds the step line through values[first..last] to `path` (moveTo/lineTo, as Path2D):
// the vertices of stepVertices, forwards or `reverse`d, without building them (the chart
// draws every band on every frame). Starts with a moveTo when `move`, else goes on with a
// lineTo. xs[i] and ys(value) are canvas positions. Returns how many vertices it added.
export function traceSteps(path, xs, ys, values, first, last, side, reverse, move) {
  const after = side === 'after';
  const start = reverse ? last : first;
  if (move) path.moveTo(xs[start], ys(values[start]));
  else path.lineTo(xs[start], ys(values[start]));
  if (!reverse) {
    for (let i = first + 1; i <= last; i++) {
      if (after) path.lineTo(xs[i], ys(values[i - 1]));
      else path.lineTo(xs[i - 1], ys(values[i]));
      path.lineTo(xs[i], ys(values[i]));
    }
  } else {
    for (let i = last; i > first; i--) {
      if (after) path.lineTo(xs[i], ys(values[i - 1]));
      else path.lineTo(xs[i - 1], ys(values[i]));
      path.lineTo(xs[i - 1], ys(values[i - 1]));
    }
  }
  return 1 + 2 * (last - first);
}

// The highest of `values` the steps show in [xMin, xMax]: the points inside, and the one
// whose step enters the window from outside (the last before xMin for 'after', the
// first after xMax for 'before'). Nulls are skipped; 0 for no data.
export function visibleStepMax(x, values, xMin, xMax, side) {
  const n = x.length;
  let first = lowerBound(x, xMin);
  let last = upperBound(x, xMax) - 1;
  // A step is drawn from a point to the next only: the last point's does not go on.
  if (side === 'after' && first > 0 && first < n) first--;
  if (side === 'before' && last >= 0 && last < n - 1) last++;
  let max = 0;
  for (let i = Math.max(first, 0); i <= Math.min(last, n - 1); i++) {
    if (values[i] != null && values[i] > max) max = values[i];
  }
  return max;
}
