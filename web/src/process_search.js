// Finding processes by name or command line: what the search box matches (a
// case-insensitive substring of the name, the command line or its short form), and
// which tree nodes stay when the tree is filtered to the matches (them and their
// ancestors, so each match is shown where it ran).

import { ancestorsOf } from './tree_model.js';

// The haystack of a process, lower case, built once per process.
function haystack(p) {
  return `${p.name || ''}\n${(p.cmdline || []).join(' ')}\n${p.short || ''}`.toLowerCase();
}

export class ProcessSearch {
  constructor(processes) {
    this.processes = processes;
    this.texts = processes.map(haystack);
  }

  // The ids of the processes matching `query`, in id order; null for an empty query.
  match(query) {
    const needle = String(query || '').trim().toLowerCase();
    if (!needle) return null;
    const ids = [];
    for (let i = 0; i < this.processes.length; i++) if (this.texts[i].includes(needle)) ids.push(this.processes[i].id);
    return ids.sort((a, b) => a - b);
  }
}

// The tree nodes to show for the matches: each match and every ancestor of one.
export function keptNodes(tree, ids) {
  const keep = new Set();
  for (const id of ids) {
    if (keep.has(id)) continue;
    keep.add(id);
    for (const ancestor of ancestorsOf(tree, id)) {
      if (keep.has(ancestor)) break;
      keep.add(ancestor);
    }
  }
  return keep;
}

// The highlight of a search (highlight.js's shape).
export function searchHighlight(query, ids) {
  const q = String(query).trim();
  return { kind: 'search', key: `q:${q}`, label: `search “${q}” (${ids.length})`, ids };
}
