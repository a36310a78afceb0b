import assert from 'node:assert/strict';
import { test } from 'node:test';
import { laneColor, laneScale, laneSegments, lifeSpan, spanPixels } from '../../src/lanes.js';

test('a life runs from first sight to the end, or to the recording’s end while running', () => {
  assert.deepEqual(lifeSpan({ first_ms: 100, start_ms: 90, end_ms: 500, last_ms: 450 }, 1000), { from: 100, to: 500 });
  assert.deepEqual(lifeSpan({ first_ms: 100, last_ms: 450 }, 1000), { from: 100, to: 450 });
  assert.deepEqual(lifeSpan({ first_ms: 100 }, 1000), { from: 100, to: 1000 });
});

test('spans map onto the lane’s pixels, clipped to the view, never thinner than 2 px', () => {
  const view = { from: 1000, to: 2000 };
  assert.deepEqual(spanPixels(1250, 1500, view, 400), [100, 200]);
  assert.deepEqual(spanPixels(500, 1100, view, 400), [0, 40]);
  assert.deepEqual(spanPixels(1900, 2500, view, 400), [360, 400]);
  assert.equal(spanPixels(2100, 2500, view, 400), null);
  assert.deepEqual(spanPixels(1500, 1500, view, 400), [200, 202]);
  assert.deepEqual(spanPixels(2000, 2000, view, 400), [398, 400]);
});

test('memory segments hold until the next sample, CPU segments back to the previous one', () => {
  const series = { t: [0, 100, 200, 300], series: [{ id: 7, offset: 1, values: [10, 20, 40] }] };
  const slice = series.series[0];
  const life = { from: 50, to: 300 };
  const view = { from: 0, to: 400 };
  assert.equal(laneScale(series, 'bytes'), 40);
  assert.deepEqual(laneSegments(series, slice, life, view, 400, 40, 'bytes'), [
    { x0: 100, x1: 200, share: 0.25 },
    { x0: 200, x1: 300, share: 0.5 },
  ]); // the last sample's step would start at the life's end: nothing to draw
  assert.equal(laneScale(series, 'percent'), 100);
  assert.deepEqual(laneSegments(series, slice, life, view, 400, 100, 'percent'), [
    { x0: 50, x1: 100, share: 0.1 },
    { x0: 100, x1: 200, share: 0.2 },
    { x0: 200, x1: 300, share: 0.4 },
  ]);
});

test('more is darker, and memory and CPU differ in hue', () => {
  const lightness = (c) => Number(c.match(/([\d.]+)%\)$/)[1]);
  assert.ok(lightness(laneColor(1, 'bytes')) < lightness(laneColor(0.5, 'bytes')));
  assert.ok(lightness(laneColor(0.5, 'bytes')) < lightness(laneColor(0, 'bytes')));
  assert.notEqual(laneColor(0.5, 'bytes'), laneColor(0.5, 'percent'));
});
