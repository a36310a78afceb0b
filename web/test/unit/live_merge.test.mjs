import assert from 'node:assert/strict';
import { test } from 'node:test';
import { withProcessesSince } from '../../src/live_merge.js';

const process = (id, extra = {}) => ({ id, name: `p${id}`, end_ms: null, ...extra });
const previous = { update: 4, live: true, processes: [process(1), process(2), process(3)] };

test('an update since the last keeps the unchanged processes and takes the changed and new ones in order', () => {
  const ended = process(2, { end_ms: 1700000001000 });
  const next = { update: 5, live: true, processes: [ended, process(4), process(5)], processes_since: 4, process_count: 5 };
  const merged = withProcessesSince(previous, next);
  assert.deepEqual(merged.processes.map((p) => p.id), [1, 2, 3, 4, 5]);
  assert.equal(merged.processes[0], previous.processes[0]);
  assert.equal(merged.processes[1], ended);
  assert.equal(merged.processes[2], previous.processes[2]);
  assert.equal(merged.update, 5);
  assert.equal('processes_since' in merged, false);
  assert.equal('process_count' in merged, false);
});

test('an answer with every process replaces the list', () => {
  const next = { update: 1, live: true, processes: [process(7)] };
  assert.equal(withProcessesSince(previous, next), next);
});

test('an update that does not add up to the server count asks for the whole recording', () => {
  const next = { update: 9, processes: [process(4)], processes_since: 4, process_count: 6 };
  assert.equal(withProcessesSince(previous, next), null);
});
