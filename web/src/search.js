// Binary searches over ascending arrays (tick times, event times): the page looks up
// times on every mouse move, over up to a million events.

// The first index whose value is >= x (arr.length when none is).
export function lowerBound(arr, x, lo = 0, hi = arr.length) {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (arr[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

// The index of the value nearest to x (the earlier one on a tie); -1 for an empty array.
export function nearestIndex(arr, x) {
  if (arr.length === 0) return -1;
  const i = lowerBound(arr, x);
  if (i === 0) return 0;
  if (i === arr.length) return arr.length - 1;
  return x - arr[i - 1] <= arr[i] - x ? i - 1 : i;
}

// The first index whose value is > x (arr.length when none is).
export function upperBound(arr, x, lo = 0, hi = arr.length) {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (arr[mid] <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

// [first, last] indices of the values inside [from, to]; first > last when none are.
export function indexRange(arr, from, to) {
  return [lowerBound(arr, from), upperBound(arr, to) - 1];
}
