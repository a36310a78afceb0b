import assert from 'node:assert/strict';
import { test } from 'node:test';
import { clampView, isFullView, kMinSpanMs, panBy, revealTime, wheelFactor, zoomAround } from '../../src/zoom.js';

// A recording from 1000 ms to 11000 ms.
const min = 1000;
const max = 11000;

test('clampView keeps the span and shifts it inside the recording', () => {
  assert.deepEqual(clampView(0, 2000, min, max), { from: 1000, to: 3000 });
  assert.deepEqual(clampView(10000, 12000, min, max), { from: 9000, to: 11000 });
  assert.deepEqual(clampView(0, 20000, min, max), { from: 1000, to: 11000 });
  // Too narrow: widened to the minimum span around its middle.
  assert.deepEqual(clampView(5000, 5002, min, max), { from: 5001 - kMinSpanMs / 2, to: 5001 + kMinSpanMs / 2 });
});

test('zoomAround keeps the anchor at the same place on screen', () => {
  // View 1000..11000, anchor 3000 (20% from the left), zoom in by 2: span 5000, from = 3000 - 0.2 * 5000.
  assert.deepEqual(zoomAround({ from: 1000, to: 11000 }, 3000, 0.5, min, max), { from: 2000, to: 7000 });
  // Zooming out past the recording gives the whole recording.
  assert.deepEqual(zoomAround({ from: 2000, to: 7000 }, 3000, 4, min, max), { from: 1000, to: 11000 });
});

test('panBy moves by a share of the span and stops at the ends', () => {
  assert.deepEqual(panBy({ from: 2000, to: 4000 }, 0.5, min, max), { from: 3000, to: 5000 });
  assert.deepEqual(panBy({ from: 2000, to: 4000 }, -1, min, max), { from: 1000, to: 3000 });
});

test('revealTime recentres only when the time is outside', () => {
  const view = { from: 2000, to: 4000 };
  assert.equal(revealTime(view, 3000, min, max), view);
  assert.deepEqual(revealTime(view, 8000, min, max), { from: 7000, to: 9000 });
  assert.deepEqual(revealTime(view, 10900, min, max), { from: 9000, to: 11000 });
});

test('wheelFactor: one notch is 1.25, either way', () => {
  assert.equal(wheelFactor(100, 0), 1.25);
  assert.equal(wheelFactor(-100, 0), 0.8);
  assert.equal(wheelFactor(3, 1), Math.pow(1.25, 0.99)); // 3 lines of 33 px
  assert.equal(wheelFactor(100000, 0), Math.pow(1.25, 5)); // capped
});

test('isFullView', () => {
  assert.equal(isFullView({ from: 1000, to: 11000 }, min, max), true);
  assert.equal(isFullView({ from: 1000, to: 10000 }, min, max), false);
});

test('a short-lived highlight brings its lifetime into view, a visible one keeps the view', async () => {
  const { lifetimeOf, viewForLifetime } = await import('../../src/zoom.js');
  const processById = new Map([
    [1, { first_ms: 1000, last_ms: 905000 }],
    [2, { first_ms: 400000, last_ms: 403000 }],
    [3, { first_ms: 401000, last_ms: 406000 }],
    [4, { first_ms: null, last_ms: null }],
  ]);
  const full = { from: 0, to: 905000 };
  const life = lifetimeOf([2, 3, 4], processById);
  assert.deepEqual(life, { from: 400000, to: 406000 });
  // 6 s of 905 s: zoomed to it, a fifth of its length each side.
  assert.deepEqual(viewForLifetime(full, life, 0, 905000), { from: 398800, to: 407200 });
  // The root's lifetime is the whole run: the view stays the same object.
  const whole = lifetimeOf([1], processById);
  assert.equal(viewForLifetime(full, whole, 0, 905000), full);
  // Wide enough but out of view: brought in.
  const late = { from: 0, to: 100000 };
  assert.deepEqual(viewForLifetime(late, life, 0, 905000), { from: 398800, to: 407200 });
  // A margin of at least a tick for a process seen once.
  assert.deepEqual(viewForLifetime(full, { from: 5000, to: 5000 }, 0, 905000, 100), { from: 4900, to: 5100 });
  assert.equal(lifetimeOf([4, 9], processById), null);
  assert.equal(viewForLifetime(full, null, 0, 905000), full);
});
