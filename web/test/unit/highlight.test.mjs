import assert from 'node:assert/strict';
import { test } from 'node:test';
import { groupHighlight, indexByName, layerHighlight, processHighlight, subtreeHighlight, toggled } from '../../src/highlight.js';

const processes = [
  { id: 1, pid: 100, name: 'make' },
  { id: 2, pid: 101, name: 'cc1plus' },
  { id: 3, pid: 102, name: 'cc1plus' },
];
const processById = new Map(processes.map((p) => [p.id, p]));
const idsByName = indexByName(processes);

test('a process, or in grouped mode its whole name', () => {
  assert.deepEqual([...idsByName], [['make', [1]], ['cc1plus', [2, 3]]]);
  const single = processHighlight(2, { processById, idsByName, grouped: false });
  assert.deepEqual(single, { kind: 'process', key: 'p:2', label: 'cc1plus 101', ids: [2], rootId: 2 });
  const grouped = processHighlight(2, { processById, idsByName, grouped: true });
  assert.deepEqual(grouped, { kind: 'group', key: 'g:cc1plus', label: 'cc1plus ×2', title: '2 processes named cc1plus in the whole recording', ids: [2, 3] });
  assert.deepEqual(groupHighlight('nothing', idsByName).ids, []);
});

test('bands map to their process or group', () => {
  const context = { processById, idsByName, grouped: true };
  assert.equal(layerHighlight({ key: 'p:3', name: 'cc1plus', ids: [3] }, context).key, 'p:3');
  assert.equal(layerHighlight({ key: 'g:cc1plus', name: 'cc1plus', ids: [2] }, context).ids.length, 2);
});

test('a subtree, and clicking the same thing twice clears', () => {
  const subtree = subtreeHighlight(1, [1, 2, 3], processById);
  assert.equal(subtree.label, 'subtree of make 100 (3)');
  assert.equal(toggled(subtree, subtreeHighlight(1, [1, 2, 3], processById)), null);
  const other = processHighlight(2, { processById, idsByName, grouped: false });
  assert.equal(toggled(subtree, other), other);
  assert.equal(toggled(null, other), other);
});
