import assert from 'node:assert/strict';
import { test } from 'node:test';
import { chartMarks, countKinds, endTimeOf, filterKinds, mergeByTime, nearestLine, processEvents } from '../../src/events_model.js';

const processes = [
  { id: 1, name: 'make', cmdline: ['make'], start_ms: 1000, first_ms: 1000, last_ms: 9000, end_ms: 9050, exit_code: 2, exit_signal: null },
  { id: 2, name: 'cc1plus', cmdline: [], start_ms: 2000, first_ms: 2100, last_ms: 3000, end_ms: null, exit_code: null, exit_signal: null },
  { id: 3, name: 'ld', cmdline: ['ld'], start_ms: 4000, first_ms: 4000, last_ms: 6000, end_ms: 6010, exit_code: null, exit_signal: 9 },
  { id: 4, name: 'daemon', cmdline: ['daemon'], start_ms: 5000, first_ms: 5000, last_ms: 9100, end_ms: null, exit_code: null, exit_signal: null },
];

test('a process ends at end_ms, else at last_ms unless it outlived the recording', () => {
  assert.equal(endTimeOf(processes[0], 9100), 9050);
  assert.equal(endTimeOf(processes[1], 9100), 3000);
  assert.equal(endTimeOf(processes[3], 9100), null);
});

test('process events: starts, failed exits as `exit`, other ends as `end`', () => {
  const events = processEvents(processes, 9100);
  assert.deepEqual(events.map((e) => [e.t, e.kind, e.process]), [
    [1000, 'start', 1],
    [2000, 'start', 2],
    [3000, 'end', 2],
    [4000, 'start', 3],
    [5000, 'start', 4],
    [6010, 'exit', 3],
    [9050, 'exit', 1],
  ]);
  assert.equal(events[5].text, 'killed by SIGKILL');
  assert.equal(events[6].text, 'exit 2');
  assert.equal(events[2].text, 'ended (status unknown)');
  assert.equal(events[1].text, 'cc1plus'); // no command line: the name
});

test('mergeByTime is stable: the recording\'s events first on a tie', () => {
  const a = [{ t: 1, id: 'a1' }, { t: 3, id: 'a3' }];
  const b = [{ t: 0, id: 'b0' }, { t: 3, id: 'b3' }, { t: 5, id: 'b5' }];
  assert.deepEqual(mergeByTime(a, b).map((e) => e.id), ['b0', 'a1', 'a3', 'b3', 'b5']);
  assert.deepEqual(mergeByTime([], b).map((e) => e.id), ['b0', 'b3', 'b5']);
});

test('filtering by kind, and the line nearest to a time', () => {
  const items = [
    { t: 100, kind: 'exec' }, { t: 200, kind: 'start' }, { t: 300, kind: 'exec' },
    { t: 300, kind: 'exit' }, { t: 700, kind: 'exec' },
  ];
  assert.deepEqual([...countKinds(items)], [['exec', 3], ['start', 1], ['exit', 1]]);
  const { indices, times } = filterKinds(items, new Set(['exec', 'exit']));
  assert.deepEqual(indices, [0, 2, 3, 4]);
  assert.deepEqual(Array.from(times), [100, 300, 300, 700]);
  assert.equal(nearestLine(times, 0), 0);
  assert.equal(nearestLine(times, 320), 1); // two lines at 300: the first
  assert.equal(nearestLine(times, 499), 1);
  assert.equal(nearestLine(times, 501), 3);
  assert.equal(nearestLine(new Float64Array(0), 5), -1);
});

test('chartMarks splits what the chart draws', () => {
  const marks = chartMarks([
    { t: 1, kind: 'mark' }, { t: 2, kind: 'exec' }, { t: 3, kind: 'exit' }, { t: 4, kind: 'end' },
    { t: 5, kind: 'oom' }, { t: 6, kind: 'signal' }, { t: 7, kind: 'log' },
  ]);
  assert.deepEqual(marks.flags.map((f) => f.t), [1, 5, 6]);
  assert.deepEqual(marks.failed, [3]);
  assert.deepEqual(marks.ended, [4]);
});
