import assert from 'node:assert/strict';
import { test } from 'node:test';
import { indexByName } from '../../src/groups.js';
import { buildFrame, groupedLayers, layerAt, layerSpan, singleLayers, stackLayers } from '../../src/stack.js';

// Four ticks; make lives throughout, two cc1plus overlap, ld appears at the last tick.
const processes = new Map([
  [1, { id: 1, pid: 100, name: 'make' }],
  [2, { id: 2, pid: 101, name: 'cc1plus' }],
  [3, { id: 3, pid: 102, name: 'cc1plus' }],
  [4, { id: 4, pid: 103, name: 'ld' }],
]);
const series = [
  { id: 1, offset: 0, values: [10, 10, 10, 10] },
  { id: 2, offset: 1, values: [5, 7] },
  { id: 3, offset: 2, values: [3, 4] },
  { id: 4, offset: 3, values: [20] },
];

const idsByName = indexByName([...processes.values()]);
const arrays = (cum) => cum.map((a) => Array.from(a));

test('single layers stack in id order, 0 outside a series', () => {
  const layers = singleLayers(series, processes);
  assert.deepEqual(layers.map((l) => l.label), ['make 100', 'cc1plus 101', 'cc1plus 102', 'ld 103']);
  assert.deepEqual(arrays(stackLayers(layers, 4)), [
    [10, 10, 10, 10],
    [10, 15, 17, 10],
    [10, 15, 20, 14],
    [10, 15, 20, 34],
  ]);
});

test('grouping sums the same name point by point, at its first process place', () => {
  const layers = groupedLayers(series, processes, idsByName);
  assert.deepEqual(layers.map((l) => l.label), ['make ×1', 'cc1plus ×2', 'ld ×1']);
  const cc = layers[1];
  assert.deepEqual(cc.ids, [2, 3]);
  assert.equal(cc.offset, 1);
  assert.deepEqual(cc.values, [5, 10, 4]); // 5; 7 + 3; 4
  assert.deepEqual(arrays(stackLayers(layers, 4)), [
    [10, 10, 10, 10],
    [10, 15, 20, 14],
    [10, 15, 20, 34],
  ]);
});

test('layerAt finds the band holding a height, never a zero-height one', () => {
  const cum = stackLayers(singleLayers(series, processes), 4);
  const at = (i) => (k) => cum[k][i];
  assert.equal(layerAt(at(2), 4, 5), 0); // make: 0..10
  assert.equal(layerAt(at(2), 4, 12), 1); // first cc1plus: 10..17
  assert.equal(layerAt(at(2), 4, 18), 2); // second cc1plus: 17..20
  assert.equal(layerAt(at(2), 4, 20), -1); // the top: above the stack (ld is 0 here)
  assert.equal(layerAt(at(3), 4, 20), 3); // ld: 14..34 at the last tick
  assert.equal(layerAt(at(2), 4, -1), -1);
  assert.equal(layerAt(() => 0, 0, 1), -1);
});

test('layerSpan adds one point each side so a band tapers, clipped to the view', () => {
  const layers = singleLayers(series, processes);
  assert.deepEqual(layerSpan(layers[0], 4), [0, 3]);
  assert.deepEqual(layerSpan(layers[1], 4), [0, 3]); // points 1..2, plus 0 and 3
  assert.deepEqual(layerSpan(layers[1], 4, 2, 3), [2, 3]);
  assert.deepEqual(layerSpan(layers[3], 4), [2, 3]);
});

test('buildFrame puts x in seconds from the start', () => {
  const data = { metric: 'rss', exact: true, t: [5000, 5100, 5200, 5300], total: [10, 15, 20, 34], mem_available: [9, 9, 9, 9], series };
  const frame = buildFrame(data, processes, true, 5000, idsByName);
  assert.deepEqual(frame.x, [0, 0.1, 0.2, 0.3]);
  assert.equal(frame.layers.length, 3);
  assert.equal(frame.grouped, true);
  assert.deepEqual(frame.available, [9, 9, 9, 9]);
  assert.equal(buildFrame({ ...data, mem_available: undefined }, processes, false, 5000).available, null);
});
