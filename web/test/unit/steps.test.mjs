import assert from 'node:assert/strict';
import { test } from 'node:test';
import { atFromSeries } from '../../src/at_local.js';
import { sampleIndex, sampleSide, stepIndex, stepSide, stepVertices, visibleStepMax } from '../../src/steps.js';

const x = [0, 1, 2, 3];
const total = [10, 15, 20, 34];

test('memory holds until the next sample, CPU back to the previous one', () => {
  assert.equal(stepSide('bytes'), 'after');
  assert.equal(stepSide('percent'), 'before');
});

test('the sample in effect between two is the earlier for memory, the later for CPU', () => {
  assert.equal(stepIndex(x, 1.4, 'after'), 1);
  assert.equal(stepIndex(x, 1.4, 'before'), 2);
  assert.equal(stepIndex(x, 2, 'after'), 2); // on a sample: that sample
  assert.equal(stepIndex(x, 2, 'before'), 2);
  // A point within the slack counts as on it (a click on its pixel).
  assert.equal(stepIndex(x, 1.98, 'after', 0.05), 2);
  assert.equal(stepIndex(x, 2.02, 'before', 0.05), 2);
  assert.equal(stepIndex(x, 1.9, 'after', 0.05), 1);
  // Outside the points: the first or the last; none at all: -1.
  assert.equal(stepIndex(x, -5, 'after'), 0);
  assert.equal(stepIndex(x, 9, 'before'), 3);
  assert.equal(stepIndex([], 1, 'after'), -1);
  // The sample a step side reads is on the other side of the time.
  assert.equal(sampleSide('after'), 'before');
  assert.equal(sampleIndex(x, 1.4, 'before'), 1);
  assert.equal(sampleIndex(x, 1.4, 'after'), 2);
});

test('a step line goes across at the held value, then up or down at the next point', () => {
  assert.deepEqual(stepVertices(1, 3, 'after'), [[1, 1], [2, 1], [2, 2], [3, 2], [3, 3]]);
  assert.deepEqual(stepVertices(1, 3, 'before'), [[1, 1], [1, 2], [2, 2], [2, 3], [3, 3]]);
  assert.deepEqual(stepVertices(2, 2, 'after'), [[2, 2]]);
});

test("the y range covers the step entering the window from outside", () => {
  assert.equal(visibleStepMax(x, total, 0, 3, 'after'), 34);
  assert.equal(visibleStepMax(x, total, 0, 2, 'after'), 20);
  // Zoomed in between 1 and 2: memory shows 15 there (held since 1), CPU 20 (up to 2).
  assert.equal(visibleStepMax(x, total, 1.2, 1.8, 'after'), 15);
  assert.equal(visibleStepMax(x, total, 1.2, 1.8, 'before'), 20);
  // 2.5..3.5 for memory: 20 enters from 2, 34 is inside.
  assert.equal(visibleStepMax(x, [10, 15, 40, 34], 2.5, 3.5, 'after'), 40);
  // Past the last point or before the first, no step is drawn.
  assert.equal(visibleStepMax(x, total, 4, 5, 'after'), 0);
  assert.equal(visibleStepMax(x, total, -2, -1, 'before'), 0);
  assert.equal(visibleStepMax(x, [null, 3, null, 1], 0, 3, 'after'), 3);
  assert.equal(visibleStepMax([], [], 0, 1, 'after'), 0);
});

test('the report reads a pinned time between two points on the side the chart draws', () => {
  const series = {
    rss: { t: [1000, 2000, 3000], total: [10, 30, 20], mem_available: [900, 880, 890],
      series: [{ id: 1, offset: 0, values: [10, 30, 20] }] },
  };
  assert.equal(atFromSeries(series, 'rss', 1900, 1000, 'before').t, 1000);
  assert.equal(atFromSeries(series, 'rss', 1100, 1000, 'after').t, 2000);
  assert.equal(atFromSeries(series, 'rss', 1900, 1000).t, 2000); // nearest, as before
});

test('traceSteps draws the vertices of stepVertices, both ways, without building them', async () => {
  const { stepVertices: vertices, traceSteps } = await import('../../src/steps.js');
  const xs = [0, 10, 20, 30, 40];
  const values = [5, 7, 2, 9, 4];
  for (const side of ['after', 'before']) {
    const calls = [];
    const path = { moveTo: (x, y) => calls.push(['m', x, y]), lineTo: (x, y) => calls.push(['l', x, y]) };
    const count = traceSteps(path, xs, (v) => v, values, 1, 4, side, false, true);
    const expected = vertices(1, 4, side).map(([i, j], k) => [k === 0 ? 'm' : 'l', xs[i], values[j]]);
    assert.deepEqual(calls, expected);
    assert.equal(count, expected.length);
    calls.length = 0;
    traceSteps(path, xs, (v) => v, values, 1, 4, side, true, false);
    assert.deepEqual(calls, [...expected].reverse().map(([, x, y]) => ['l', x, y]));
  }
});
