import assert from 'node:assert/strict';
import { test } from 'node:test';
import { atFromSeries } from '../../src/at_local.js';
import { indexByName } from '../../src/groups.js';
import { groupRows, infoRows } from '../../src/info_model.js';

const MiB = 1048576;
const processById = new Map([
  [1, { id: 1, pid: 100, ppid: 99, name: 'sh' }],
  [2, { id: 2, pid: 101, ppid: 100, name: 'work' }],
  [3, { id: 3, pid: 102, ppid: 100, name: 'work' }],
]);
const idsByName = indexByName([...processById.values()]);
const at = {
  t: 5000,
  processes: [
    { id: 1, rss: 2 * MiB, anon: 1 * MiB, swap: 0, pss: null, cpu: 50, threads: 1 },
    { id: 2, rss: 50 * MiB, anon: 48 * MiB, swap: 0, pss: null, cpu: 1, threads: 1 },
    { id: 3, rss: 150 * MiB, anon: 148 * MiB, swap: 4096, pss: null, cpu: 0, threads: 2 },
  ],
};

test('rows are sorted by the chart metric, largest first', () => {
  assert.deepEqual(infoRows(at, processById, 'rss', false).map((r) => r.pid), [102, 101, 100]);
  assert.deepEqual(infoRows(at, processById, 'cpu', false).map((r) => r.pid), [100, 101, 102]);
  const row = infoRows(at, processById, 'rss', false)[0];
  assert.equal(row.name, 'work');
  assert.equal(row.ppid, 100);
  assert.equal(row.swap, 4096);
});

test('grouped rows sum by name; an unknown column stays unknown', () => {
  const rows = infoRows(at, processById, 'rss', true, idsByName);
  assert.deepEqual(rows.map((r) => [r.name, r.count, r.rss / MiB, r.threads]), [['work', 2, 200, 3], ['sh', 1, 2, 1]]);
  const unknown = groupRows([{ id: 1, name: 'x', threads: null, rss: 1 }, { id: 2, name: 'x', threads: null, rss: 2 }], new Map());
  assert.equal(unknown[0].threads, null);
  assert.equal(unknown[0].rss, 3);
});

test('the report computes /api/at from the embedded series at each metric\'s nearest point', () => {
  // rss has ticks 1000, 2000, 3000; cpu was downsampled to 1000 and 3000 only.
  const series = {
    rss: {
      t: [1000, 2000, 3000], total: [10, 30, 20], mem_available: [900, 880, 890],
      series: [{ id: 1, offset: 0, values: [10, 10, 10] }, { id: 2, offset: 1, values: [20, 10] }],
    },
    cpu: {
      t: [1000, 3000], total: [5, 60],
      series: [{ id: 1, offset: 0, values: [5, 10] }, { id: 2, offset: 1, values: [50] }],
    },
  };
  const result = atFromSeries(series, 'rss', 1900, 1000);
  assert.equal(result.t, 2000);
  assert.equal(result.nearest, true);
  assert.deepEqual(result.processes.map((p) => [p.id, p.rss, p.cpu, p.threads]), [
    [1, 10, 5, null], // cpu's nearest point to 1900 is 1000 (900 away; 3000 is 1100 away)
    [2, 20, null, null], // not alive at cpu's point 1000
  ]);
  assert.deepEqual(result.totals, { processes: 2, rss: 30, anon: null, swap: null, pss: null, cpu: 5, mem_available: 880, mem_total: 1000 });
  // Referenced on cpu instead, the processes are those at cpu's nearest point.
  const onCpu = atFromSeries(series, 'cpu', 2900, 1000);
  assert.equal(onCpu.t, 3000);
  assert.deepEqual(onCpu.processes.map((p) => [p.id, p.rss, p.cpu]), [[1, 10, 10], [2, 10, 50]]);
});
