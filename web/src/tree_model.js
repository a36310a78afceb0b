// The process hierarchy from the recording's `parent` links, and its flattening into the
// rows the tree panel shows (only children of expanded nodes).
//
// Orphans the recorder adopted (parent null, adopted true) were reparented to canopy
// itself, which sits above the command: they are shown as extra roots after the
// command's root, marked "adopted", not under the root they no longer belong to.
// A parent id missing from the list (should not happen) also makes a root, so that no
// process is ever hidden.

export function buildTree(processes) {
  const byId = new Map(processes.map((p) => [p.id, p]));
  const children = new Map();
  const roots = [];
  for (const p of processes) {
    if (p.parent != null && byId.has(p.parent) && p.parent !== p.id) {
      if (!children.has(p.parent)) children.set(p.parent, []);
      children.get(p.parent).push(p.id);
    } else {
      roots.push(p.id);
    }
  }
  const idOrder = (a, b) => a - b;
  for (const list of children.values()) list.sort(idOrder);
  // The command first, then adopted orphans and anything else, each in start order.
  roots.sort((a, b) => Number(byId.get(a).adopted) - Number(byId.get(b).adopted) || a - b);
  const depth = new Map();
  const parentOf = new Map();
  const stack = roots.map((id) => [id, 0, null]);
  while (stack.length) {
    const [id, d, parent] = stack.pop();
    if (depth.has(id)) continue; // a cycle in bad data must not loop forever
    depth.set(id, d);
    parentOf.set(id, parent);
    for (const child of children.get(id) || []) stack.push([child, d + 1, id]);
  }
  return { byId, roots, children, depth, parentOf };
}

// Nodes open at first: the top levels, where a tree of thousands stays short.
export function defaultExpanded(tree, maxDepth = 3) {
  const expanded = new Set();
  for (const [id, d] of tree.depth) {
    if (d < maxDepth && tree.children.has(id)) expanded.add(id);
  }
  return expanded;
}

// The rows on screen, in depth-first order: {id, depth, hasChildren, expanded}. With
// `keep` (a search's matches and their ancestors), only those nodes, all open.
export function flattenVisible(tree, expanded, keep = null) {
  const rows = [];
  // An explicit stack, not recursion: a chain of nested shells can be thousands deep.
  const stack = [];
  for (let i = tree.roots.length - 1; i >= 0; i--) stack.push([tree.roots[i], 0]);
  while (stack.length) {
    const [id, depth] = stack.pop();
    if (keep && !keep.has(id)) continue;
    const all = tree.children.get(id) || [];
    const kids = keep ? all.filter((kid) => keep.has(kid)) : all;
    const open = keep ? true : expanded.has(id);
    rows.push({ id, depth, hasChildren: kids.length > 0, expanded: open });
    if (open) for (let i = kids.length - 1; i >= 0; i--) stack.push([kids[i], depth + 1]);
  }
  return rows;
}

export function subtreeIds(tree, id) {
  const ids = [];
  const stack = [id];
  while (stack.length) {
    const current = stack.pop();
    ids.push(current);
    for (const child of tree.children.get(current) || []) stack.push(child);
  }
  return ids.sort((a, b) => a - b);
}

// The chain of parents above id, nearest first.
export function ancestorsOf(tree, id) {
  const chain = [];
  let current = tree.parentOf.get(id);
  while (current != null && chain.length < 100000) {
    chain.push(current);
    current = tree.parentOf.get(current);
  }
  return chain;
}

// The whole tree's peak for the header: the highest sum at a tick (recording.peak), or,
// when a process held more on its own (between ticks, or in a tree that ended before a
// tick could sample it), at least that: its root's subtree peak is then a floor
// (subtree_peak_at_least), as `canopy report` says. Null when nothing says.
export function treePeak(recording) {
  const sampled = recording.peak ? recording.peak.rss_bytes : null;
  let floor = null;
  for (const p of recording.processes || []) {
    if (p.parent == null && p.subtree_peak_at_least && p.subtree_peak_rss_bytes > (floor ?? -1)) {
      floor = p.subtree_peak_rss_bytes;
    }
  }
  if (floor != null && floor > (sampled ?? -1)) return { bytes: floor, atLeast: true };
  return sampled != null ? { bytes: sampled, atLeast: false } : null;
}

// What the chart says in place of bands when no tick sampled the tree (it ended before
// one could): the processes' own peaks are in the tree panel. Null when there are bands
// to draw, or when the recording goes on (its first tick may be still to come).
export function unsampledTreeNote(recording) {
  const processes = recording.processes || [];
  const sampled = recording.peak ? recording.peak.rss_bytes : null;
  if (recording.live || !processes.length || sampled > 0) return null;
  const interval = recording.meta && recording.meta.interval_ms;
  return 'No tick sampled the tree: it ended before one could' +
    (interval ? ` (one every ${interval} ms)` : '') +
    '. Each process\'s own peak is in the process tree; a shorter --interval draws it here.';
}
