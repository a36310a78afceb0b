import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildFrame } from '../../src/stack.js';
import { areaInView, isolate, kOtherKey, toggleHidden, topLayers } from '../../src/top_bands.js';
import { readUrlState, topNChoices, writeUrlState } from '../../src/url_state.js';

const layer = (key, offset, values) => ({ key, name: key, label: key, ids: [Number(key.slice(2))], offset, values });

test('areaInView sums only the points in the window', () => {
  const l = layer('p:1', 2, [1, 2, 3, 4]); // points 2..5
  assert.equal(areaInView(l, 0, 100), 10);
  assert.equal(areaInView(l, 3, 4), 5);
  assert.equal(areaInView(l, 6, 9), 0);
});

test('topLayers keeps the n largest in view, largest first, and sums the rest as other', () => {
  const layers = [layer('p:1', 0, [1, 1, 1, 1]), layer('p:2', 0, [9, 9, 0, 0]), layer('p:3', 1, [5, 5, 5]), layer('p:4', 2, [2, 7])];
  const { legend, stacked } = topLayers(layers, { n: 2 });
  assert.deepEqual(legend.map((l) => l.key), ['p:2', 'p:3', kOtherKey]);
  assert.deepEqual(stacked, legend);
  const other = legend[2];
  assert.equal(other.count, 2);
  assert.deepEqual(other.ids.sort(), [1, 4]);
  assert.equal(other.offset, 0);
  assert.deepEqual(other.values, [1, 1, 3, 8]);
  // In a window of points 2..3 only, p:4 and p:3 lead.
  assert.deepEqual(topLayers(layers, { n: 2, i0: 2, i1: 3 }).legend.map((l) => l.key), ['p:3', 'p:4', kOtherKey]);
});

test('other equals the sum of the rest at every point, for random bands', () => {
  let seed = 7;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  const n = 200;
  const layers = [];
  for (let k = 0; k < 300; k++) {
    const offset = Math.floor(random() * n);
    const length = 1 + Math.floor(random() * (n - offset));
    layers.push(layer(`p:${k + 1}`, offset, Array.from({ length }, () => Math.floor(random() * 1000))));
  }
  const { legend } = topLayers(layers, { n: 12 });
  assert.equal(legend.length, 13);
  const topKeys = new Set(legend.slice(0, 12).map((l) => l.key));
  const other = legend[12];
  for (let i = 0; i < n; i++) {
    let rest = 0;
    for (const l of layers) if (!topKeys.has(l.key) && i >= l.offset && i < l.offset + l.values.length) rest += l.values[i - l.offset];
    const j = i - other.offset;
    assert.equal(j >= 0 && j < other.values.length ? other.values[j] : 0, rest, `point ${i}`);
  }
  // And each top band is at least as large as any band in other.
  const smallestTop = Math.min(...legend.slice(0, 12).map((l) => l.area));
  for (const l of layers) if (!topKeys.has(l.key)) assert.ok(areaInView(l, 0, n) <= smallestTop);
});

test('topLayers: one band left over is shown as itself, n = 0 keeps all', () => {
  const layers = [layer('p:1', 0, [1]), layer('p:2', 0, [2]), layer('p:3', 0, [3])];
  assert.deepEqual(topLayers(layers, { n: 2 }).legend.map((l) => l.key), ['p:3', 'p:2', 'p:1']);
  assert.deepEqual(topLayers(layers, { n: 0 }).legend.map((l) => l.key), ['p:3', 'p:2', 'p:1']);
});

test('hidden bands stay in the legend but leave the stack, and pull nothing in', () => {
  const layers = [layer('p:1', 0, [1]), layer('p:2', 0, [2]), layer('p:3', 0, [3]), layer('p:4', 0, [4])];
  const { legend, stacked } = topLayers(layers, { n: 2, hidden: new Set(['p:4']) });
  assert.deepEqual(legend.map((l) => l.key), ['p:4', 'p:3', kOtherKey]);
  assert.deepEqual(stacked.map((l) => l.key), ['p:3', kOtherKey]);
});

test('toggleHidden and isolate', () => {
  const keys = ['a', 'b', 'c'];
  assert.deepEqual([...toggleHidden(new Set(), 'a')], ['a']);
  assert.deepEqual([...toggleHidden(new Set(['a']), 'a')], []);
  assert.deepEqual([...isolate(new Set(), 'b', keys)].sort(), ['a', 'c']);
  assert.deepEqual([...isolate(new Set(['a', 'c']), 'b', keys)], []); // isolated already: show all
  assert.deepEqual([...isolate(new Set(['a', 'b']), 'b', keys)].sort(), ['a', 'c']);
});

test('buildFrame stacks the top bands, the stack top equals the total with nothing hidden', () => {
  const processes = new Map([1, 2, 3, 4, 5].map((id) => [id, { id, pid: 100 + id, name: `p${id}` }]));
  const data = {
    metric: 'rss',
    t: [1000, 2000, 3000],
    total: [15, 20, 12],
    series: [1, 2, 3, 4, 5].map((id) => ({ id, offset: 0, values: [id, id + 1, id - 1 + 0.4] })).map((s) => s),
  };
  data.total = [0, 1, 2].map((i) => data.series.reduce((sum, s) => sum + s.values[i], 0));
  const frame = buildFrame(data, processes, false, 1000, new Map(), { topN: 2 });
  assert.deepEqual(frame.layers.map((l) => l.key), ['p:5', 'p:4', kOtherKey]);
  assert.equal(frame.bandCount, 5);
  const top = frame.cum[frame.cum.length - 1];
  for (let i = 0; i < 3; i++) assert.ok(Math.abs(top[i] - data.total[i]) < 1e-9);
});

test('URL state: top and group round-trip, junk is ignored', () => {
  assert.deepEqual(readUrlState('#top=8&group=name'), { topN: 8, grouped: true });
  assert.deepEqual(readUrlState('#top=all&group=process'), { topN: 0, grouped: false });
  assert.deepEqual(readUrlState('#top=-3&group=x'), {});
  assert.deepEqual(readUrlState(''), {});
  assert.deepEqual(readUrlState(writeUrlState({ topN: 20, grouped: false })), { topN: 20, grouped: false });
  assert.deepEqual(readUrlState(writeUrlState({ topN: 0, grouped: true })), { topN: 0, grouped: true });
  assert.deepEqual(readUrlState(writeUrlState({ topN: 8, grouped: true, clock: 'wall' })), { topN: 8, grouped: true, clock: 'wall' });
  assert.deepEqual(readUrlState('#clock=moon'), {});
  assert.deepEqual(topNChoices(7), [5, 7, 8, 12, 20, 50, 0]);
});
