// The CPU and heap profiles' pure logic, shared by both data sources and the panes:
// - the heat map's cells (FlameScope: x the second, y the 20 ms row within it) and the
//   time range a drag from one cell to another selects;
// - the merged stack tree (the shape GET /api/cpu/flame answers, web/API.md) built from
//   what `report --html` embeds: the stack tree's nodes and samples counted per
//   (time bucket, process, node), summed as the server sums them;
// - a flame graph's layout, search and zoom over such a tree.
// A tree node is {n: name, v: total, s: self, c: children by name}; the diff's carry
// b (bytes before) and a (after), with v the growth.

// Frames narrower than this share of the root are left out, as the server does
// (src/web/profile_view.h kFlameMinShareDivisor): their figures stay in their parent.
export const kFlameMinShareDivisor = 5000;

// The profiles of a recording (GET /api/recording's `profiles`) that have something to
// draw: a CPU profile with samples, a heap profile with snapshots; null for the others.
export function drawableProfiles(recording) {
  const profiles = (recording && recording.profiles) || {};
  return {
    cpu: profiles.cpu && profiles.cpu.samples > 0 ? profiles.cpu : null,
    heap: profiles.heap && Object.keys(profiles.heap.snapshots || {}).length > 0 ? profiles.heap : null,
  };
}

// The cell under time tMs: {second, row}.
export function cellOf(startMs, rowMs, tMs) {
  const offset = Math.max(0, tMs - startMs);
  return { second: Math.floor(offset / 1000), row: Math.floor((offset % 1000) / rowMs) };
}

export function cellStart(startMs, rowMs, cell) {
  return startMs + cell.second * 1000 + cell.row * rowMs;
}

// The range a drag from cell a to cell b selects, in time order whichever way it went:
// from the start of the earlier cell to the end of the later one (ms, end exclusive).
export function cellRange(startMs, rowMs, a, b) {
  const ta = cellStart(startMs, rowMs, a);
  const tb = cellStart(startMs, rowMs, b);
  return { from: Math.min(ta, tb), to: Math.max(ta, tb) + rowMs };
}

// Whether process id `id` is among those asked about (null: the whole tree).
function wanted(ids, id) {
  return ids == null || ids.has(id);
}

// What the embedded profile cannot answer: a selection when it holds the whole tree's
// samples only (a report bounded its size so, src/web/profile_view.h).
function checkSelectable(byProcess, ids) {
  if (ids != null && !byProcess) {
    throw new Error('this report holds the whole tree\'s CPU profile only (it was too large to keep per process): clear the highlight, or open the recording with canopy view');
  }
}

// GET /api/cpu/heatmap's answer from the embedded profile: samples per (second, row).
export function heatmapFromEntries(profile, ids) {
  checkSelectable(profile.cells_by_process, ids);
  const cells = new Map();
  let samples = 0;
  for (const [second, row, process, count] of profile.cells) {
    if (!wanted(ids, process)) continue;
    const key = second * profile.rows + row;
    cells.set(key, (cells.get(key) || 0) + count);
    samples += count;
  }
  const list = [...cells.entries()].sort((a, b) => a[0] - b[0])
    .map(([key, count]) => [Math.floor(key / profile.rows), key % profile.rows, count]);
  return { start_ms: profile.start_ms, row_ms: profile.row_ms, rows: profile.rows, seconds: profile.seconds, samples, cells: list };
}

// GET /api/cpu/flame's answer from the embedded profile: the samples of the buckets
// (bucket_ms long: the 20 ms cells, or coarser in a large report) that start within the
// range widened to whole buckets. For a range of whole buckets (a drag, in cells) that
// is exactly its samples; `from` and `to` say the range summed.
export function flameFromEntries(profile, ids, fromMs, toMs) {
  checkSelectable(profile.entries_by_process, ids);
  const bucket = profile.bucket_ms;
  const from = profile.start_ms + Math.floor((fromMs - profile.start_ms) / bucket) * bucket;
  const to = profile.start_ms + Math.ceil((toMs - profile.start_ms) / bucket) * bucket;
  const self = new Array(profile.nodes.length).fill(0);
  let samples = 0;
  for (const [index, process, node, count] of profile.entries) {
    const t = profile.start_ms + index * bucket;
    if (t < from || t >= to || !wanted(ids, process)) continue;
    self[node] += count;
    samples += count;
  }
  return { from, to, bucket_ms: bucket, samples, tree: treeFromNodes(profile.nodes, self) };
}

// Each node's figure plus its descendants' (parents come before children).
function summedUp(nodes, values) {
  const total = values.slice();
  for (let i = nodes.length - 1; i > 0; i--) total[nodes[i][1]] += total[i];
  return total;
}

// Nested nodes from a node table ([name, parent index], parents before children) and
// each node's own figure: totals summed up, children by name, narrow frames left out.
// `extra` ({key: figures per node}) adds more summed figures (the diff's b and a).
export function treeFromNodes(nodes, self, extra = {}) {
  const total = summedUp(nodes, self);
  const extras = Object.entries(extra).map(([key, values]) => [key, summedUp(nodes, values)]);
  const children = nodes.map(() => []);
  for (let i = 1; i < nodes.length; i++) children[nodes[i][1]].push(i);
  const minTotal = Math.max(1, Math.floor(total[0] / kFlameMinShareDivisor));
  const build = (i) => {
    const node = { n: nodes[i][0], v: total[i], s: self[i] };
    for (const [key, sums] of extras) node[key] = sums[i];
    node.c = children[i].filter((k) => total[k] >= minTotal)
      .sort((a, b) => (nodes[a][0] < nodes[b][0] ? -1 : nodes[a][0] > nodes[b][0] ? 1 : 0))
      .map(build);
    return node;
  };
  return build(0);
}

// The node a zoom path (indices of children from the root) leads to, or the root when
// the path no longer fits the tree.
export function nodeAt(tree, path) {
  let node = tree;
  for (const i of path) {
    if (!node.c || !node.c[i]) return tree;
    node = node.c[i];
  }
  return node;
}

// The rectangles a flame graph draws with `focus` (a zoom path) filling the width: the
// focused frame's ancestors full width above it, its descendants by their share.
// Each: {depth, x (0..1), w (0..1), node, path}. Frames narrower than minWidth are not
// laid out (their parents show them as self).
export function flameLayout(tree, focus = [], minWidth = 0) {
  const rects = [];
  let node = tree;
  const path = [];
  rects.push({ depth: 0, x: 0, w: 1, node, path: [] });
  for (const i of focus) {
    if (!node.c || !node.c[i]) break;
    node = node.c[i];
    path.push(i);
    rects.push({ depth: path.length, x: 0, w: 1, node, path: path.slice() });
  }
  const base = node.v || 1;
  const walk = (parent, parentPath, depth, x) => {
    let offset = x;
    (parent.c || []).forEach((child, i) => {
      const w = child.v / base;
      if (w >= minWidth && child.v > 0) {
        const childPath = [...parentPath, i];
        rects.push({ depth, x: offset, w, node: child, path: childPath });
        walk(child, childPath, depth + 1, offset);
      }
      offset += w;
    });
  };
  walk(node, path, path.length + 1, 0);
  return rects;
}

// Frames whose name holds `query` (case-insensitive): the matched share counts each
// sample once, at the outermost matching frame (as flamegraph.pl's search does).
export function searchTree(tree, query) {
  const needle = query.trim().toLowerCase();
  const matched = new Set();
  let total = 0;
  if (!needle) return { matched, total, share: 0 };
  const walk = (node, under) => {
    const hit = node !== tree && node.n.toLowerCase().includes(needle);
    if (hit) matched.add(node);
    if (hit && !under) total += node.v;
    for (const child of node.c || []) walk(child, under || hit);
  };
  walk(tree, false);
  return { matched, total, share: tree.v > 0 ? total / tree.v : 0 };
}

// A diff node's colour weight: the share of what it held at the later time that is new
// (0: held all of it before, 1: all of it grew).
export function growthShare(node) {
  return node.a > 0 ? Math.min(1, node.v / node.a) : 0;
}

// --- the heap panes of `report --html`: what GET /api/heap/flame and /api/heap/diff
// answer, from the embedded change points (src/web/profile_view.h heap_report_json),
// taken as analyze::heap_growth takes them: the process's image that started last by
// the later time, each at its last snapshot by a time, a stack's bytes those of its last
// change by that snapshot, and only the stacks that grew.

// The index of the image's last snapshot at or before tMs, or -1.
export function snapshotIndexAt(image, tMs) {
  let index = -1;
  for (let i = 0; i < image.snapshots.length && image.snapshots[i] <= tMs; i++) index = i;
  return index;
}

// A stack's bytes at snapshot `index` from its change points [i0, bytes0, i1, bytes1, ...].
export function bytesAt(points, index) {
  let bytes = 0;
  for (let k = 0; k < points.length && points[k] <= index; k += 2) bytes = points[k + 1];
  return bytes;
}

function imageOf(heap, processId, tMs) {
  let found = null;
  for (const image of heap.images) {
    if (image.process !== processId || image.started_ms > tMs) continue;
    if (!found || image.started_ms >= found.started_ms) found = image;
  }
  return found;
}

// {image, fromT, toT, toIndex, fromInUse, toInUse, stacks: [[node, before, after]]} of the
// stacks that grew from fromMs (nothing before: null) to toMs; an Error when the
// process had no snapshot by toMs.
export function heapGrowth(heap, processId, fromMs, toMs) {
  const image = imageOf(heap, processId, toMs);
  const to = image ? snapshotIndexAt(image, toMs) : -1;
  if (!image || to < 0 || image.snapshots[image.snapshots.length - 1] < (fromMs ?? -Infinity)) {
    throw new Error(`process ${processId} had no heap snapshot by then`);
  }
  const from = fromMs == null ? -1 : snapshotIndexAt(image, fromMs);
  const stacks = [];
  for (const [node, points] of image.stacks) {
    const before = from >= 0 ? bytesAt(points, from) : 0;
    const after = bytesAt(points, to);
    if (after > before) stacks.push([node, before, after]);
  }
  return {
    image,
    fromT: from >= 0 ? image.snapshots[from] : image.started_ms,
    toT: image.snapshots[to],
    toIndex: to,
    fromInUse: from >= 0 ? image.in_use[from] : 0,
    toInUse: image.in_use[to],
    stacks,
  };
}

function nodeFigures(heap, stacks, pick) {
  const values = new Array(heap.nodes.length).fill(0);
  for (const stack of stacks) values[stack[0]] += pick(stack);
  return values;
}

export function heapFlameFromImages(heap, processId, tMs) {
  const growth = heapGrowth(heap, processId, null, tMs);
  const tree = treeFromNodes(heap.nodes, nodeFigures(heap, growth.stacks, (s) => s[2]));
  return { process: processId, pid: growth.image.pid, image: growth.image.image, t_ms: growth.toT,
    snapshot_in_use_bytes: growth.toInUse, high_water_bytes: (growth.image.high_water || [])[growth.toIndex] ?? null,
    stacks: growth.stacks.length, tree };
}

export function heapDiffFromImages(heap, processId, fromMs, toMs) {
  const growth = heapGrowth(heap, processId, fromMs, toMs);
  const tree = treeFromNodes(heap.nodes, nodeFigures(heap, growth.stacks, (s) => s[2] - s[1]), {
    b: nodeFigures(heap, growth.stacks, (s) => s[1]),
    a: nodeFigures(heap, growth.stacks, (s) => s[2]),
  });
  return { process: processId, pid: growth.image.pid, image: growth.image.image, from_ms: growth.fromT, to_ms: growth.toT,
    from_in_use_bytes: growth.fromInUse, to_in_use_bytes: growth.toInUse, stacks: growth.stacks.length, tree };
}
