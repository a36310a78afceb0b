import assert from 'node:assert/strict';
import { test } from 'node:test';
import { keptNodes, ProcessSearch, searchHighlight } from '../../src/process_search.js';
import { buildTree, flattenVisible } from '../../src/tree_model.js';

// make -> sh -> cc1plus (json.cpp), make -> sh -> cc1plus (lexer.cpp), make -> ld
const processes = [
  { id: 1, pid: 10, ppid: 1, parent: null, name: 'make', cmdline: ['make', '-j2'] },
  { id: 2, pid: 11, ppid: 10, parent: 1, name: 'sh', cmdline: ['sh', '-c', 'c++ -c src/json.cpp'] },
  { id: 3, pid: 12, ppid: 11, parent: 2, name: 'cc1plus', cmdline: ['cc1plus', 'src/json.cpp', '-o', '/tmp/a.s'], short: 'src/json.cpp' },
  { id: 4, pid: 13, ppid: 10, parent: 1, name: 'sh', cmdline: ['sh', '-c', 'c++ -c src/Lexer.cpp'] },
  { id: 5, pid: 14, ppid: 13, parent: 4, name: 'cc1plus', cmdline: ['cc1plus', 'src/Lexer.cpp'], short: 'src/Lexer.cpp' },
  { id: 6, pid: 15, ppid: 10, parent: 1, name: 'ld', cmdline: [] },
];

test('search matches name or command line, case-insensitive; empty is no search', () => {
  const search = new ProcessSearch(processes);
  assert.deepEqual(search.match('cc1plus'), [3, 5]);
  assert.deepEqual(search.match('LEXER'), [4, 5]);
  assert.deepEqual(search.match(' json.cpp '), [2, 3]);
  assert.deepEqual(search.match('ld'), [6]);
  assert.deepEqual(search.match('nothing'), []);
  assert.equal(search.match('  '), null);
});

test('the filtered tree keeps the matches and their ancestors, open', () => {
  const tree = buildTree(processes);
  const keep = keptNodes(tree, [5]);
  assert.deepEqual([...keep].sort(), [1, 4, 5]);
  const rows = flattenVisible(tree, new Set(), keep);
  assert.deepEqual(rows.map((r) => [r.id, r.depth]), [[1, 0], [4, 1], [5, 2]]);
  assert.ok(rows.every((r) => r.expanded));
  // Unfiltered, collapsed: the root alone.
  assert.deepEqual(flattenVisible(tree, new Set()).map((r) => r.id), [1]);
});

test('a search highlight names the query and the count', () => {
  assert.deepEqual(searchHighlight(' json ', [2, 3]), { kind: 'search', key: 'q:json', label: 'search “json” (2)', ids: [2, 3] });
});
