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
