// What a highlight is: the set of process ids to mark everywhere (chart bands, panel rows,
// tree nodes), with a key to recognise a second click on the same thing and a label for
// the toolbar. One process; in grouped mode its whole command name; or a subtree.

import { groupLabel, groupTitle } from './groups.js';
import { processLabel } from './process_index.js';

export { indexByName } from './groups.js';

export function groupHighlight(name, idsByName) {
  const ids = idsByName.get(name) || [];
  return { kind: 'group', key: `g:${name}`, label: groupLabel(name, idsByName), title: groupTitle(name, idsByName), ids };
}

// In grouped mode a process stands for its group, as the chart shows only groups.
export function processHighlight(id, { processById, idsByName, grouped }) {
  const p = processById.get(id);
  if (grouped && p) return groupHighlight(p.name, idsByName);
  return { kind: 'process', key: `p:${id}`, label: p ? processLabel(p) : `#${id}`, ids: [id], rootId: id };
}

export function subtreeHighlight(id, ids, processById) {
  const p = processById.get(id);
  const label = `subtree of ${p ? `${p.name} ${p.pid}` : `#${id}`} (${ids.length})`;
  return { kind: 'subtree', key: `s:${id}`, label, ids, rootId: id };
}

// The highlight for a band of the chart (see stack.js for layer keys).
// The "other" band (top_bands.js) stands for every band outside the top N.
export function layerHighlight(layer, context) {
  if (layer.key === 'other') return { kind: 'other', key: 'other', label: layer.label, ids: layer.ids };
  if (layer.key.startsWith('g:')) return groupHighlight(layer.name, context.idsByName);
  return processHighlight(layer.ids[0], { ...context, grouped: false });
}

// Clicking what is highlighted already clears it.
export function toggled(current, next) {
  return current && current.key === next.key ? null : next;
}
