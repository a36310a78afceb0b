import assert from 'node:assert/strict';
import { test } from 'node:test';
import { byteIncrsFor, elapsedDecimals, elapsedLabels, yLabels } from '../../src/chart_axes.js';

const MiB = 1048576;
const GiB = 1024 * MiB;

test('byte steps are round numbers of the unit of the axis top', () => {
  const mib = byteIncrsFor(365.6 * MiB);
  assert.ok(mib.includes(50 * MiB) && mib.includes(100 * MiB) && mib.includes(25 * MiB));
  const gib = byteIncrsFor(4.05 * GiB);
  assert.ok(gib.includes(0.5 * GiB) && gib.includes(GiB) && gib.includes(0.25 * GiB));
  assert.ok(!gib.includes(500 * MiB));
  assert.ok(byteIncrsFor(100).every((incr) => incr >= 1)); // no fractions of a byte
});

test('y labels share one unit; CPU in percent', () => {
  assert.deepEqual(yLabels([0, 0.5 * GiB, GiB, 1.5 * GiB], 'bytes', 1.6 * GiB), ['0', '0.5 GiB', '1 GiB', '1.5 GiB']);
  assert.deepEqual(yLabels([0, 100 * MiB, 200 * MiB], 'bytes', 365 * MiB), ['0', '100 MiB', '200 MiB']);
  assert.deepEqual(yLabels([0, 25, 50], 'percent', 60), ['0%', '25%', '50%']);
});

test('elapsed labels get the decimals their step needs', () => {
  assert.equal(elapsedDecimals(30), 0);
  assert.equal(elapsedDecimals(1), 0);
  assert.equal(elapsedDecimals(0.5), 1);
  assert.equal(elapsedDecimals(0.2), 1);
  assert.equal(elapsedDecimals(0.05), 2);
  assert.equal(elapsedDecimals(0.001), 3);
  assert.deepEqual(elapsedLabels([0, 0.2, 0.4], 0.2), ['0:00.0', '0:00.2', '0:00.4']);
  assert.deepEqual(elapsedLabels([0, 60, 3600], 60), ['0:00', '1:00', '1:00:00']);
});
