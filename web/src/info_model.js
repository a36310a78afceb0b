// The information panel's rows from one /api/at answer (or its report stand-in): one row
// per process alive at that tick, or one per command name when grouped, sorted by the
// metric the chart shows, largest first.

import { groupCount } from './groups.js';

const kSummed = ['rss', 'anon', 'swap', 'pss', 'cpu', 'threads'];

export function processRows(at, processById) {
  return at.processes.map((p) => {
    const process = processById.get(p.id) || {};
    return {
      key: `p:${p.id}`,
      id: p.id,
      ids: [p.id],
      name: process.name ?? `#${p.id}`,
      short: process.short ?? null,
      pid: process.pid ?? null,
      ppid: process.ppid ?? null,
      rss: p.rss,
      anon: p.anon,
      swap: p.swap,
      pss: p.pss,
      cpu: p.cpu,
      threads: p.threads,
    };
  });
}

// A sum that stays null when no member knows the value (the report has no threads).
function addKnown(a, b) {
  if (b == null) return a;
  return (a ?? 0) + b;
}

// A group's `count` is the recording's (groups.js); `alive`, its members in `rows`.
export function groupRows(rows, idsByName) {
  const groups = new Map();
  for (const row of rows) {
    let group = groups.get(row.name);
    if (!group) {
      group = { key: `g:${row.name}`, id: null, ids: [], name: row.name, pid: null, ppid: null, count: 0, alive: 0 };
      for (const column of kSummed) group[column] = null;
      groups.set(row.name, group);
    }
    group.ids.push(row.id);
    group.alive++;
    for (const column of kSummed) group[column] = addKnown(group[column], row[column]);
  }
  for (const group of groups.values()) group.count = groupCount(group.name, idsByName, group.alive);
  return [...groups.values()];
}

export function sortRows(rows, metric) {
  return rows.sort((a, b) => {
    const va = a[metric] ?? -Infinity;
    const vb = b[metric] ?? -Infinity;
    if (vb !== va) return vb - va;
    return (a.ids[0] ?? 0) - (b.ids[0] ?? 0);
  });
}

export function infoRows(at, processById, metric, grouped, idsByName) {
  const rows = processRows(at, processById);
  return sortRows(grouped ? groupRows(rows, idsByName) : rows, metric);
}
