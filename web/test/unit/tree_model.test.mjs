import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ancestorsOf, buildTree, defaultExpanded, flattenVisible, subtreeIds, treePeak, unsampledTreeNote } from '../../src/tree_model.js';

// make(1) -> sh(2) -> cc1plus(4) -> as(6)
//         -> sh(3) -> cc1plus(5)
// an orphan daemon (7) adopted by the recorder, and its child (8).
const processes = [
  { id: 1, parent: null, adopted: false },
  { id: 2, parent: 1 },
  { id: 3, parent: 1 },
  { id: 4, parent: 2 },
  { id: 5, parent: 3 },
  { id: 6, parent: 4 },
  { id: 7, parent: null, adopted: true },
  { id: 8, parent: 7 },
];

test('adopted orphans are extra roots after the command', () => {
  const tree = buildTree([processes[6], ...processes.slice(0, 6), processes[7]]);
  assert.deepEqual(tree.roots, [1, 7]);
  assert.deepEqual(tree.children.get(1), [2, 3]);
  assert.equal(tree.depth.get(6), 3);
  assert.equal(tree.depth.get(8), 1);
});

test('a missing parent makes a root rather than hiding the process', () => {
  const tree = buildTree([{ id: 1, parent: null }, { id: 2, parent: 99 }]);
  assert.deepEqual(tree.roots, [1, 2]);
});

test('nodes above depth 3 start open; flattening follows the open ones', () => {
  const tree = buildTree(processes);
  const expanded = defaultExpanded(tree);
  assert.deepEqual([...expanded].sort(), [1, 2, 3, 4, 7]); // 4 is at depth 2; 6 has no children
  const rows = flattenVisible(tree, expanded);
  assert.deepEqual(rows.map((r) => r.id), [1, 2, 4, 6, 3, 5, 7, 8]);
  assert.deepEqual(rows.map((r) => r.depth), [0, 1, 2, 3, 1, 2, 0, 1]);
  assert.deepEqual(flattenVisible(tree, new Set([1])).map((r) => r.id), [1, 2, 3, 7]);
  assert.equal(flattenVisible(tree, new Set()).length, 2);
  assert.equal(defaultExpanded(tree, 1).size, 2); // only the roots with children: 1 and 7
});

test('subtree and ancestors', () => {
  const tree = buildTree(processes);
  assert.deepEqual(subtreeIds(tree, 2), [2, 4, 6]);
  assert.deepEqual(subtreeIds(tree, 1), [1, 2, 3, 4, 5, 6]);
  assert.deepEqual(ancestorsOf(tree, 6), [4, 2, 1]);
  assert.deepEqual(ancestorsOf(tree, 1), []);
});

test('a chain 20,000 deep flattens without recursion', () => {
  const chain = Array.from({ length: 20000 }, (_, i) => ({ id: i + 1, parent: i === 0 ? null : i }));
  const tree = buildTree(chain);
  const rows = flattenVisible(tree, new Set(chain.map((p) => p.id)));
  assert.equal(rows.length, 20000);
  assert.equal(rows[19999].depth, 19999);
});

test('the tree peak is at least a process that held more than any tick saw', () => {
  const root = { id: 1, parent: null, subtree_peak_rss_bytes: 202, subtree_peak_at_least: true };
  // A tree that ended before a tick could sample it: the chart's peak is 0.
  assert.deepEqual(treePeak({ peak: { rss_bytes: 0 }, processes: [root] }), { bytes: 202, atLeast: true });
  // The ticks saw more: theirs is the figure.
  assert.deepEqual(treePeak({ peak: { rss_bytes: 300 }, processes: [root] }), { bytes: 300, atLeast: false });
  // A subtree peak from the ticks alone is no floor, and a child's is its root's already.
  const sampled = { id: 1, parent: null, subtree_peak_rss_bytes: 250, subtree_peak_at_least: false };
  const child = { id: 2, parent: 1, subtree_peak_rss_bytes: 400, subtree_peak_at_least: true };
  assert.deepEqual(treePeak({ peak: { rss_bytes: 200 }, processes: [sampled, child] }), { bytes: 200, atLeast: false });
  assert.equal(treePeak({ processes: [] }), null);
});

test('the chart says why it is empty when no tick sampled the tree', () => {
  const processes = [{ id: 1, parent: null }];
  const meta = { interval_ms: 1000 };
  assert.equal(unsampledTreeNote({ peak: { rss_bytes: 0 }, processes, meta }),
    "No tick sampled the tree: it ended before one could (one every 1000 ms). Each process's own peak is in the process tree; a shorter --interval draws it here.");
  assert.equal(unsampledTreeNote({ peak: { rss_bytes: 5 }, processes, meta }), null);
  assert.equal(unsampledTreeNote({ peak: { rss_bytes: 0 }, processes, meta, live: true }), null, 'its first tick may come');
  assert.equal(unsampledTreeNote({ peak: { rss_bytes: 0 }, processes: [], meta }), null);
});
