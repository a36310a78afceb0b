import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LocalEvents, baseName, chartMarks, countOf, endTimeOf, firstLine, kindsParam, processEvents } from '../../src/events_model.js';

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

test('chartMarks: flags from the flag events, ticks from the process ends; never a log line', () => {
  const marks = chartMarks(
    [{ t: 1, kind: 'mark' }, { t: 5, kind: 'oom' }, { t: 6, kind: 'signal' }, { t: 7, kind: 'log' }],
    [{ t: 2, kind: 'start' }, { t: 3, kind: 'exit' }, { t: 4, kind: 'end' }],
  );
  assert.deepEqual(marks.flags.map((f) => f.t), [1, 5, 6]);
  assert.deepEqual(marks.failed, [3]);
  assert.deepEqual(marks.ended, [4]);
});

test('a multi-line text shows its first line and how many more', () => {
  assert.deepEqual(firstLine('plain'), { line: 'plain', more: 0 });
  assert.deepEqual(firstLine('Traceback:\n  File "x.py"\nValueError: bad'), { line: 'Traceback:', more: 2 });
  assert.deepEqual(firstLine('/src/CMakeLists.txt(12):\r\n  add_library(x)\n'), { line: '/src/CMakeLists.txt(12):', more: 1 });
  assert.deepEqual(firstLine(null), { line: '', more: 0 });
});

test('a log source shows as its base name', () => {
  assert.equal(baseName('/var/log/app.log'), 'app.log');
  assert.equal(baseName('app.log'), 'app.log');
  assert.equal(baseName('logs\\worker.log'), 'worker.log');
  assert.equal(baseName('dir/'), 'dir');
});

test('kinds go to the server sorted, and their counts add up', () => {
  assert.equal(kindsParam(new Set(['stdout', 'log', 'exec'])), 'exec,log,stdout');
  assert.equal(kindsParam(new Set()), '');
  const counts = new Map([['log', 1000000], ['stdout', 3], ['mark', 1]]);
  assert.equal(countOf(counts, new Set(['log', 'mark', 'oom'])), 1000001);
});

test('the report\'s local events answer like the API: pages, totals, the line at a time', () => {
  const events = [
    { t: 100, kind: 'exec' }, { t: 200, kind: 'start' }, { t: 300, kind: 'log' },
    { t: 300, kind: 'exec' }, { t: 700, kind: 'log' }, { t: 900, kind: 'stdout' },
  ];
  const local = new LocalEvents(events);
  assert.deepEqual([...local.counts()], [['exec', 2], ['start', 1], ['log', 2], ['stdout', 1]]);
  const page = local.page('exec,log', 1, 2);
  assert.equal(page.total, 4);
  assert.equal(page.offset, 1);
  assert.deepEqual(page.events, [events[2], events[3]]);
  assert.equal(local.page(null, 0, 100).total, 6);
  assert.equal(local.page('', 0, 100).total, 0);
  // The line nearest to a time, the first of several at its time: exec,log are at
  // 100, 300, 300 and 700.
  assert.deepEqual(local.indexAt('exec,log', 190), { index: 0, total: 4 });
  assert.deepEqual(local.indexAt('exec,log', 250), { index: 1, total: 4 });
  assert.deepEqual(local.indexAt('exec,log', 300), { index: 1, total: 4 }); // the first at 300
  assert.deepEqual(local.indexAt('exec,log', 500), { index: 1, total: 4 }); // a tie: the earlier
  assert.deepEqual(local.indexAt('exec,log', 800), { index: 3, total: 4 }); // none after: the last
  assert.deepEqual(local.indexAt(null, 0), { index: 0, total: 6 });
  assert.deepEqual(local.indexAt('', 500), { index: 0, total: 0 });
});
