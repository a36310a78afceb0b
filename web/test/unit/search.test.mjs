import assert from 'node:assert/strict';
import { test } from 'node:test';
import { indexRange, lowerBound, nearestIndex, upperBound } from '../../src/search.js';

const ticks = [100, 200, 300, 400];

test('lowerBound and upperBound', () => {
  assert.equal(lowerBound(ticks, 50), 0);
  assert.equal(lowerBound(ticks, 200), 1);
  assert.equal(lowerBound(ticks, 250), 2);
  assert.equal(lowerBound(ticks, 500), 4);
  assert.equal(upperBound(ticks, 200), 2);
  assert.equal(upperBound(ticks, 400), 4);
  assert.equal(upperBound(ticks, 99), 0);
});

test('nearestIndex takes the earlier tick on a tie', () => {
  assert.equal(nearestIndex(ticks, 0), 0);
  assert.equal(nearestIndex(ticks, 149), 0);
  assert.equal(nearestIndex(ticks, 150), 0);
  assert.equal(nearestIndex(ticks, 151), 1);
  assert.equal(nearestIndex(ticks, 1000), 3);
  assert.equal(nearestIndex([], 5), -1);
  assert.equal(nearestIndex(Float64Array.from(ticks), 390), 3);
});

test('indexRange is inclusive on both ends', () => {
  assert.deepEqual(indexRange(ticks, 200, 300), [1, 2]);
  assert.deepEqual(indexRange(ticks, 150, 350), [1, 2]);
  assert.deepEqual(indexRange(ticks, 210, 290), [2, 1]); // empty: first > last
});
