import assert from 'node:assert/strict';
import { test } from 'node:test';
import { timeFormat } from '../../src/time_format.js';
import { byteIncrsFor, elapsedDecimals, timeLabels, yLabels, yTitle } from '../../src/chart_axes.js';

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
  const elapsed = timeFormat({ startMs: 5000 });
  assert.deepEqual(timeLabels([0, 0.2, 0.4], 0.2, elapsed, 5000), ['0:00.0', '0:00.2', '0:00.4']);
  assert.deepEqual(timeLabels([0, 60, 3600], 60, elapsed, 5000), ['0:00', '1:00', '1:00:00']);
  // The same ticks on the wall clock at UTC+01:00, the recording starting 10:00:00 UTC.
  const start = Date.UTC(2026, 10, 22, 10, 0, 0);
  const wall = timeFormat({ clock: 'wall', startMs: start, utcOffsetS: 3600 });
  assert.deepEqual(timeLabels([0, 0.2, 0.4], 0.2, wall, start), ['11:00:00.0', '11:00:00.2', '11:00:00.4']);
  assert.deepEqual(timeLabels([0, 60, 3600], 60, wall, start), ['11:00:00', '11:01:00', '12:00:00']);
});

test('axis titles name the unit; CPU is a share of one core and says the ceiling', () => {
  assert.equal(yTitle('CPU', 'percent', 8), 'CPU, % of one core (8 CPUs: 800%)');
  assert.equal(yTitle('CPU', 'percent', null), 'CPU, % of one core');
  assert.match(yTitle('Resident', 'bytes'), /^Resident, bytes/);
});
