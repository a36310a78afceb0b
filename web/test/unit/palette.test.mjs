import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hashString, hueForId, layerColors } from '../../src/palette.js';

test('colours are stable and neighbours in start order differ', () => {
  assert.equal(hashString(''), 0x811c9dc5);
  assert.equal(hashString('a'), 0xe40c292c); // FNV-1a reference value
  assert.deepEqual(layerColors('g:cc1plus'), layerColors('g:cc1plus'));
  // Golden-angle steps rounded to 7.5 degrees: 137.508 -> 135, 275.016 -> 277.5,
  // 412.524 - 360 = 52.524 -> 52.5.
  assert.equal(hueForId(1), 135);
  assert.equal(hueForId(2), 277.5);
  assert.equal(hueForId(3), 52.5);
  assert.notEqual(hueForId(41), hueForId(42));
});
