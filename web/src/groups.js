// A group is every process of one command name in the recording. Its count, the "×N" of
// a grouped band, of the highlight and of the information panel's row, is how many
// processes of that name the whole recording has: one number for one group, whatever is
// in view, downsampled away or alive at a moment (the panel says that one apart).

export function indexByName(processes) {
  const index = new Map();
  for (const p of processes) {
    if (!index.has(p.name)) index.set(p.name, []);
    index.get(p.name).push(p.id);
  }
  return index;
}

// `fallback`: the count for a name the index lacks (a process missing from the list).
export function groupCount(name, idsByName, fallback = 0) {
  const ids = idsByName.get(name);
  return ids ? ids.length : fallback;
}

export function groupLabel(name, idsByName, fallback = 0) {
  return `${name} ×${groupCount(name, idsByName, fallback)}`;
}

// What the count counts, in words; with `alive`, how many of them a moment holds.
export function groupTitle(name, idsByName, alive = null) {
  const count = groupCount(name, idsByName, alive ?? 0);
  const whole = `${count} ${count === 1 ? 'process' : 'processes'} named ${name} in the whole recording`;
  return alive == null ? whole : `${whole}; ${alive} alive at this moment, their figures summed here`;
}

export const kGroupCountMeaning = '×N: the processes of that name in the whole recording';

// The most processes alive at once (from first_ms to last_ms inclusive, as the API
// says), over the whole recording: how many bands the chart would stack at its busiest
// moment. A process with no sample (gone between two ticks) is never a band.
export function peakConcurrency(processes) {
  const edges = [];
  for (const p of processes) {
    if (p.first_ms == null || p.last_ms == null) continue;
    edges.push([p.first_ms, 1], [p.last_ms, -1]);
  }
  // At equal times a start counts before an end: both ends are inclusive.
  edges.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
  let alive = 0;
  let peak = 0;
  for (const [, step] of edges) {
    alive += step;
    if (alive > peak) peak = alive;
  }
  return peak;
}

// Bands per command name by default when more processes run at once than this: beyond
// it, even the top bands (top_bands.js) are slivers of many alike workers. A build of
// 600 compilers run 8 at a time stays per process.
export const kAutoGroupAbove = 40;

export function groupsByDefault(processes) {
  return peakConcurrency(processes) > kAutoGroupAbove;
}
