import assert from 'node:assert/strict';
import { test } from 'node:test';
import { processLabel, refillProcessIndex } from '../../src/process_index.js';

const make = { id: 1, name: 'make', cmdline: ['make', '-j2'] };
const cc = (id, file) => ({ id, name: 'cc1plus', cmdline: ['cc1plus', '-quiet', file, '-o', `/tmp/${id}.s`] });

test('a live update refills the list and maps the views hold, dropping what the old recording had', () => {
  const index = { processes: [], processById: new Map(), idsByName: new Map() };
  const { processes, processById, idsByName } = index;
  refillProcessIndex(index, [make, cc(2, 'a.cpp')]);
  refillProcessIndex(index, [make, cc(3, 'b.cpp'), cc(4, 'c.cpp')]);
  assert.equal(index.processes, processes);
  assert.equal(index.processById, processById);
  assert.equal(index.idsByName, idsByName);
  assert.deepEqual(processes.map((p) => p.id), [1, 3, 4]);
  assert.deepEqual([...processById.keys()], [1, 3, 4]);
  assert.deepEqual([...idsByName], [['make', [1]], ['cc1plus', [3, 4]]]);
});

test('a label is the name, the pid and the short command the server gave', () => {
  assert.equal(processLabel({ name: 'cc1plus', pid: 10913, short: 'src/json.cpp' }), 'cc1plus 10913 src/json.cpp');
  assert.equal(processLabel({ name: 'make', pid: 7, short: null }), 'make 7');
});
