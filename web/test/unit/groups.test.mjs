import assert from 'node:assert/strict';
import { test } from 'node:test';
import { groupCount, groupLabel, groupTitle, indexByName } from '../../src/groups.js';
import { groupHighlight } from '../../src/highlight.js';
import { infoRows } from '../../src/info_model.js';
import { groupedLayers } from '../../src/stack.js';

// Five cc1plus in the recording; the series in view carries three of them, and the
// moment the panel shows has two alive.
const processes = [
  { id: 1, pid: 100, name: 'make' },
  ...[2, 3, 4, 5, 6].map((id) => ({ id, pid: 100 + id, name: 'cc1plus' })),
];
const processById = new Map(processes.map((p) => [p.id, p]));
const idsByName = indexByName(processes);
const series = [
  { id: 1, offset: 0, values: [1, 1, 1] },
  { id: 3, offset: 0, values: [5] },
  { id: 4, offset: 1, values: [6] },
  { id: 5, offset: 2, values: [7] },
];
const at = { t: 1000, processes: [{ id: 1, rss: 1 }, { id: 4, rss: 6 }, { id: 5, rss: 7 }] };

test("a group's band, highlight and panel row count the same processes: the recording's", () => {
  const band = groupedLayers(series, processById, idsByName).find((l) => l.name === 'cc1plus');
  assert.equal(band.label, 'cc1plus ×5');
  assert.deepEqual(band.ids, [3, 4, 5]); // what it sums: the members in view
  assert.equal(groupHighlight('cc1plus', idsByName).label, 'cc1plus ×5');
  const row = infoRows(at, processById, 'rss', true, idsByName).find((r) => r.name === 'cc1plus');
  assert.equal(row.count, 5);
  assert.equal(row.alive, 2);
  assert.equal(row.rss, 13);
});

test('the title says what the count counts, and how many a moment holds', () => {
  assert.equal(groupTitle('cc1plus', idsByName), '5 processes named cc1plus in the whole recording');
  assert.equal(groupTitle('make', idsByName, 1), '1 process named make in the whole recording; 1 alive at this moment, their figures summed here');
  assert.equal(groupCount('ld', idsByName, 3), 3); // a name missing from the list: what is known
  assert.equal(groupLabel('ld', idsByName), 'ld ×0');
});

test('peak concurrency: the most processes alive at once, ends inclusive', async () => {
  const { groupsByDefault, kAutoGroupAbove, peakConcurrency } = await import('../../src/groups.js');
  const at = (first, last) => ({ first_ms: first, last_ms: last });
  assert.equal(peakConcurrency([]), 0);
  assert.equal(peakConcurrency([at(0, 10), at(10, 20), at(21, 30)]), 2); // touch at 10
  assert.equal(peakConcurrency([at(0, 100), at(5, 6), at(7, 8), at(9, 10), { first_ms: null, last_ms: null }]), 2);
  // 600 compilers, 8 at a time, one after another: many processes, few at once.
  const build = Array.from({ length: 600 }, (_, i) => at(Math.floor(i / 8) * 100, Math.floor(i / 8) * 100 + 90));
  assert.equal(peakConcurrency(build), 8);
  assert.equal(groupsByDefault(build), false);
  // Workers all alive together: grouped.
  const workers = Array.from({ length: kAutoGroupAbove + 1 }, () => at(0, 1000));
  assert.equal(groupsByDefault(workers), true);
  assert.equal(groupsByDefault(workers.slice(1)), false);
});
