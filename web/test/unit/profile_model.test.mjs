import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  bytesAt, cellOf, cellRange, flameFromEntries, flameLayout, growthShare, heapDiffFromImages, heapFlameFromImages,
  heatmapFromEntries, nodeAt, searchTree, snapshotIndexAt, treeFromNodes,
} from '../../src/profile_model.js';

// all > main > {work > {hot, cold}, idle}; other process: all > main > hot
const nodes = [['all', -1], ['main', 0], ['work', 1], ['hot', 2], ['cold', 2], ['idle', 1]];
const start = 1_000_000;
// Samples as [second, row, process, node, count], embedded as a report does at 20 ms
// buckets: the heat map's cells per process, and entries per (bucket, process, node).
const samples = [[0, 0, 1, 3, 7], [0, 0, 1, 4, 3], [0, 1, 2, 3, 5], [1, 49, 1, 3, 2], [2, 10, 2, 5, 4]];
const profile = {
  start_ms: start, row_ms: 20, rows: 50, seconds: 3, nodes, bucket_ms: 20, cells_by_process: true, entries_by_process: true,
  cells: [[0, 0, 1, 10], [0, 1, 2, 5], [1, 49, 1, 2], [2, 10, 2, 4]],
  entries: samples.map(([second, row, process, node, count]) => [second * 50 + row, process, node, count]),
};

test('the cell of a time and the range a drag selects, whichever way it went', () => {
  assert.deepEqual(cellOf(start, 20, start + 1019), { second: 1, row: 0 });
  assert.deepEqual(cellOf(start, 20, start + 999), { second: 0, row: 49 });
  assert.deepEqual(cellOf(start, 20, start - 5), { second: 0, row: 0 }, 'before the start: the first cell');
  const forward = cellRange(start, 20, { second: 0, row: 1 }, { second: 1, row: 49 });
  assert.deepEqual(forward, { from: start + 20, to: start + 2000 });
  assert.deepEqual(cellRange(start, 20, { second: 1, row: 49 }, { second: 0, row: 1 }), forward);
  assert.deepEqual(cellRange(start, 20, { second: 2, row: 3 }, { second: 2, row: 3 }), { from: start + 2060, to: start + 2080 });
});

test('heat-map binning sums the counts per cell of the processes asked about', () => {
  const all = heatmapFromEntries(profile, null);
  assert.equal(all.samples, 21);
  assert.deepEqual(all.cells, [[0, 0, 10], [0, 1, 5], [1, 49, 2], [2, 10, 4]]);
  const one = heatmapFromEntries(profile, new Set([2]));
  assert.equal(one.samples, 9);
  assert.deepEqual(one.cells, [[0, 1, 5], [2, 10, 4]]);
  assert.equal(heatmapFromEntries(profile, new Set([9])).samples, 0);
});

test('a range of cells gives a stack tree whose root is its samples', () => {
  const flame = flameFromEntries(profile, null, start, start + 2000);
  assert.equal(flame.samples, 17);
  assert.equal(flame.tree.v, 17);
  const main = flame.tree.c[0];
  assert.equal(main.n, 'main');
  assert.deepEqual(main.c.map((c) => c.n), ['work'], 'idle had no sample in the range: not drawn');
  const work = main.c[0];
  assert.deepEqual(work.c.map((c) => [c.n, c.v, c.s]), [['cold', 3, 3], ['hot', 14, 14]], 'children by name');
  const process2 = flameFromEntries(profile, new Set([2]), start, start + 3000);
  assert.equal(process2.tree.v, 9);
  const empty = flameFromEntries(profile, null, start + 2500, start + 3000);
  assert.equal(empty.samples, 0);
  assert.equal(empty.tree.v, 0);
});

test('a report with coarser buckets widens the range to them and says so', () => {
  const coarse = { ...profile, bucket_ms: 1000, entries: samples.map(([second, , process, node, count]) => [second, process, node, count]) };
  const flame = flameFromEntries(coarse, null, start + 20, start + 1500);
  assert.equal(flame.from, start);
  assert.equal(flame.to, start + 2000);
  assert.equal(flame.bucket_ms, 1000);
  assert.equal(flame.samples, 17);
  const tree = { ...profile, cells_by_process: false, entries_by_process: false };
  assert.equal(heatmapFromEntries(tree, null).samples, 21);
  assert.throws(() => heatmapFromEntries(tree, new Set([1])), /whole tree's CPU profile only/);
  assert.throws(() => flameFromEntries(tree, new Set([1]), start, start + 1000), /whole tree's CPU profile only/);
});

test('frames under 1/5000 of the root are left out, their figures kept in the parent', () => {
  const tree = treeFromNodes(nodes, [0, 0, 0, 4999, 1, 0]);
  assert.equal(tree.v, 5000);
  assert.deepEqual(tree.c[0].c[0].c.map((c) => c.n), ['cold', 'hot'], '1 of 5000 is drawn');
  const wider = treeFromNodes(nodes, [0, 0, 0, 9999, 1, 0]);
  assert.deepEqual(wider.c[0].c[0].c.map((c) => c.n), ['hot'], '1 of 10000 is not');
  assert.equal(wider.c[0].c[0].v, 10000, 'but it counts in its parent');
  assert.equal(wider.c[0].c[0].s, 0);
});

test('search counts each sample once, at the outermost matching frame', () => {
  // all > a > {a > x (3), y (2)}, b > x (5)
  const tree = treeFromNodes([['all', -1], ['a', 0], ['a', 1], ['x', 2], ['y', 1], ['b', 0], ['x', 5]], [0, 0, 0, 3, 2, 0, 5]);
  const a = searchTree(tree, 'A');
  assert.equal(a.total, 5, 'a inside a counts once');
  assert.equal(a.matched.size, 2);
  assert.equal(searchTree(tree, 'x').total, 8);
  assert.equal(searchTree(tree, 'x').share, 0.8);
  assert.equal(searchTree(tree, '  ').matched.size, 0);
});

test('the layout fills the width with the focused frame and keeps its ancestors above', () => {
  const tree = flameFromEntries(profile, null, start, start + 3000).tree; // 21: main 21 > work 17 {cold 3, hot 14}, idle 4
  const rects = flameLayout(tree);
  const byName = new Map(rects.map((r) => [r.node.n, r]));
  assert.equal(byName.get('main').w, 1);
  assert.equal(byName.get('idle').w, 4 / 21);
  assert.equal(byName.get('work').x, 4 / 21, 'after idle: children by name');
  assert.equal(byName.get('hot').depth, 3);
  const workPath = byName.get('work').path;
  assert.equal(nodeAt(tree, workPath).n, 'work');
  const zoomed = flameLayout(tree, workPath);
  const zoomedByName = new Map(zoomed.map((r) => [r.node.n, r]));
  assert.equal(zoomedByName.get('main').w, 1, 'an ancestor: full width');
  assert.equal(zoomedByName.get('work').w, 1);
  assert.equal(zoomedByName.get('hot').w, 14 / 17);
  assert.equal(zoomedByName.has('idle'), false, 'a sibling of the focus is not drawn');
  assert.equal(nodeAt(tree, [7, 7]).n, 'all', 'a path that no longer fits: the root');
  assert.equal(flameLayout(tree, [], 0.2).some((r) => r.node.n === 'cold'), false, 'narrower than the least width');
});

// One image of process 7 with snapshots at 100, 200, 300; stacks at nodes 3 (hot: grows),
// 4 (cold: shrinks) and 5 (idle: from the second snapshot on).
const heap = {
  nodes,
  images: [
    { process: 7, pid: 70, image: 1, started_ms: 50, snapshots: [100, 200, 300], in_use: [110, 150, 210],
      high_water: [null, 180, null], stacks: [[3, [0, 100, 1, 120, 2, 200]], [4, [0, 10, 2, 5]], [5, [1, 30]]] },
    { process: 7, pid: 70, image: 2, started_ms: 400, snapshots: [450], in_use: [1], stacks: [[3, [0, 1]]] },
  ],
};

test('a stack holds the bytes of its last change by a snapshot', () => {
  const image = heap.images[0];
  assert.equal(snapshotIndexAt(image, 99), -1);
  assert.equal(snapshotIndexAt(image, 250), 1);
  assert.equal(bytesAt([0, 100, 1, 120, 2, 200], 1), 120);
  assert.equal(bytesAt([1, 30], 0), 0, 'nothing before its first change');
});

test('the heap in use at a time: the image then, at its last snapshot by then', () => {
  const held = heapFlameFromImages(heap, 7, 260);
  assert.equal(held.t_ms, 200);
  assert.equal(held.tree.v, 120 + 10 + 30);
  assert.equal(held.snapshot_in_use_bytes, 150);
  assert.equal(held.high_water_bytes, 180, 'the heap reached more between snapshots');
  assert.equal(heapFlameFromImages(heap, 7, 150).high_water_bytes, null);
  assert.equal(heapFlameFromImages(heap, 7, 500).image, 2, 'the image that started last by then');
  assert.equal(heapFlameFromImages(heap, 7, 500).high_water_bytes, null, 'a report without the figures');
  assert.throws(() => heapFlameFromImages(heap, 7, 60), /no heap snapshot by then/);
  assert.throws(() => heapFlameFromImages(heap, 8, 260), /no heap snapshot/);
});

test('the diff: only what grew, with what it held before and after', () => {
  const diff = heapDiffFromImages(heap, 7, 150, 399);
  assert.equal(diff.from_ms, 100);
  assert.equal(diff.to_ms, 300);
  assert.equal(diff.tree.v, 100 + 30, 'hot grew 100, idle 30; cold shrank and is left out');
  assert.equal(diff.tree.b, 100);
  assert.equal(diff.tree.a, 230);
  const work = diff.tree.c[0].c.find((c) => c.n === 'work');
  assert.deepEqual(work.c.map((c) => c.n), ['hot']);
  assert.equal(growthShare(work.c[0]), 0.5);
  const fromStart = heapDiffFromImages(heap, 7, 10, 150);
  assert.equal(fromStart.from_ms, 50, 'an image that began later grew from nothing, from its start');
  assert.equal(fromStart.tree.v, 110);
});
