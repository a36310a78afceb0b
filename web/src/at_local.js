// The report's stand-in for GET /api/at: the same shape, computed from the embedded
// series (one per metric, each downsampled on its own, so each has its own ticks). The
// processes listed are those alive at the point of the reference metric (the one the
// chart shows) that stands for t: the nearest, or the one at or before or after it
// (`side`, as GET /api/at's); every other metric is read at its own such point.
// Values the series do not carry (threads, file, shmem, cpu_ns) are null.

import { nearestIndex } from './search.js';
import { sampleIndex } from './steps.js';

// The value of series entry `entry` at point i, or undefined outside its range.
function valueAt(entry, i) {
  const k = i - entry.offset;
  return k >= 0 && k < entry.values.length ? entry.values[k] : undefined;
}

// `side`: the nearest point, or the one at or 'before' t, or at or 'after' it.
function pointOf(series, t, side) {
  if (!series || !series.t || series.t.length === 0) return null;
  const index = side === 'before' || side === 'after' ? sampleIndex(series.t, t, side) : nearestIndex(series.t, t);
  const byId = new Map();
  for (const entry of series.series) {
    const value = valueAt(entry, index);
    if (value !== undefined) byId.set(entry.id, value);
  }
  return { index, t: series.t[index], byId, series };
}

export function atFromSeries(seriesByMetric, referenceMetric, t, memTotalBytes, side = 'nearest') {
  const metrics = Object.keys(seriesByMetric);
  const reference = seriesByMetric[referenceMetric] ? referenceMetric : metrics[0];
  const points = Object.fromEntries(metrics.map((m) => [m, pointOf(seriesByMetric[m], t, side)]));
  const ref = points[reference];
  if (!ref) return { t, processes: [], totals: { processes: 0 }, nearest: true };
  const read = (metric, id) => {
    const point = points[metric];
    if (!point) return null;
    const value = point.byId.get(id);
    return value === undefined ? null : value;
  };
  const processes = [...ref.byId.keys()].map((id) => ({
    id,
    rss: read('rss', id),
    anon: read('anon', id),
    file: null,
    shmem: null,
    swap: read('swap', id),
    pss: read('pss', id),
    cpu: read('cpu', id),
    cpu_ns: null,
    threads: null,
  }));
  const total = (metric) => (points[metric] ? points[metric].series.total[points[metric].index] : null);
  const memory = points.rss || points.anon || points.swap;
  const available = memory && memory.series.mem_available ? memory.series.mem_available[memory.index] : null;
  return {
    t: ref.t,
    processes,
    totals: {
      processes: processes.length,
      rss: total('rss'),
      anon: total('anon'),
      swap: total('swap'),
      pss: total('pss'),
      cpu: total('cpu'),
      mem_available: available ?? null,
      mem_total: memTotalBytes ?? null,
    },
    nearest: true,
  };
}
