// Pure stacking and grouping of the sparse per-process series of /api/series.
// A series covers points offset .. offset+values.length-1 and counts as 0 elsewhere
// (the process is not alive there). A "layer" is one band of the stacked chart: one
// process, or in grouped mode every process of one command name summed point by point.
// Layers come in id order (start order), a group at its first process's place;
// buildFrame stacks them by size (top_bands.js).

import { groupLabel } from './groups.js';
import { processLabel } from './process_index.js';
import { indexRange } from './search.js';
import { kDefaultTopN, topLayers } from './top_bands.js';

export function singleLayers(series, processById) {
  return series.map((s) => {
    const process = processById.get(s.id);
    const name = process ? process.name : `#${s.id}`;
    return {
      key: `p:${s.id}`,
      name,
      label: process ? processLabel(process) : name,
      ids: [s.id],
      offset: s.offset,
      values: s.values,
    };
  });
}

// Sums the series of processes with the same name. The sum spans from the first point of
// any member to the last; members outside their own range add nothing. The label counts
// the group's processes in the whole recording (groups.js), not the members in view.
export function groupedLayers(series, processById, idsByName) {
  const groups = new Map();
  for (const s of series) {
    const process = processById.get(s.id);
    const name = process ? process.name : `#${s.id}`;
    let group = groups.get(name);
    if (!group) {
      group = { key: `g:${name}`, name, ids: [], members: [], firstId: s.id };
      groups.set(name, group);
    }
    group.ids.push(s.id);
    group.members.push(s);
    group.firstId = Math.min(group.firstId, s.id);
  }
  return [...groups.values()]
    .sort((a, b) => a.firstId - b.firstId)
    .map((group) => ({
      key: group.key,
      name: group.name,
      label: groupLabel(group.name, idsByName, group.ids.length),
      ids: group.ids,
      ...sumMembers(group.members),
    }));
}

function sumMembers(members) {
  const offset = Math.min(...members.map((m) => m.offset));
  const end = Math.max(...members.map((m) => m.offset + m.values.length));
  const values = new Array(end - offset).fill(0);
  for (const m of members) {
    for (let i = 0; i < m.values.length; i++) values[m.offset - offset + i] += m.values[i] || 0;
  }
  return { offset, values };
}

// Cumulative arrays, one per layer, each of length n: cum[k][i] is the top of layer k at
// point i, so layer k is the band between cum[k-1] (0 for k = 0) and cum[k].
export function stackLayers(layers, n) {
  const cum = [];
  let below = new Float64Array(n);
  for (const layer of layers) {
    const top = Float64Array.from(below);
    for (let i = 0; i < layer.values.length; i++) top[layer.offset + i] += layer.values[i] || 0;
    cum.push(top);
    below = top;
  }
  return cum;
}

// The layer whose band holds height y, given cumAt(k) = top of layer k at the cursor
// (tops never decrease with k): the first k with cumAt(k) > y. -1 when y is below 0 or
// above the stack. Zero-height layers are never found, as they cover nothing.
export function layerAt(cumAt, count, y) {
  if (y < 0 || count === 0 || y >= cumAt(count - 1)) return -1;
  let lo = 0;
  let hi = count - 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (cumAt(mid) > y) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

// The points a layer is drawn over: its own points plus one on each side, where its band
// has height 0, so that its steps rise from and fall to 0 (steps.js); clipped to [i0, i1].
export function layerSpan(layer, n, i0 = 0, i1 = n - 1) {
  const first = Math.max(layer.offset - 1, i0, 0);
  const last = Math.min(layer.offset + layer.values.length, i1, n - 1);
  return [first, last];
}

// Everything the chart draws for one /api/series answer: x in seconds since the
// recording's start (uPlot's numeric axis then puts ticks on round elapsed times), the
// layers in stacking order and their cumulative tops, the total line and MemAvailable.
// `bands`: {topN, hidden, xMin, xMax} picks the bands (top_bands.js) by their area
// between xMin and xMax (seconds, the visible window); `legend` lists them, hidden too.
export function buildFrame(data, processById, grouped, startMs, idsByName, bands = {}) {
  const n = data.t.length;
  const all = grouped ? groupedLayers(data.series, processById, idsByName) : singleLayers(data.series, processById);
  const x = data.t.map((t) => (t - startMs) / 1000);
  const [i0, i1] = indexRange(x, bands.xMin ?? -Infinity, bands.xMax ?? Infinity);
  const { legend, stacked } = topLayers(all, { n: bands.topN ?? kDefaultTopN, i0, i1, hidden: bands.hidden });
  return {
    metric: data.metric,
    grouped: Boolean(grouped),
    exact: Boolean(data.exact),
    t: data.t,
    x,
    total: data.total,
    available: data.mem_available || null,
    bandCount: all.length,
    legend,
    layers: stacked,
    cum: stackLayers(stacked, n),
  };
}
