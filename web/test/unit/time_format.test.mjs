import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatOffset, formatWall, timeFormat } from '../../src/time_format.js';

const start = Date.UTC(2026, 10, 22, 10, 0, 0); // 10:00:00 UTC

test('elapsed: one form to the millisecond, no sign', () => {
  const time = timeFormat({ startMs: start });
  assert.equal(time.at(start + 360), '0:00.360');
  assert.equal(time.at(start + 3723004), '1:02:03.004');
  assert.equal(time.atShort(start + 600, 1), '0:00.6');
  assert.match(time.title, /since the start/);
});

test('wall clock at the recorded offset, whatever the viewer\'s zone', () => {
  const time = timeFormat({ clock: 'wall', startMs: start, utcOffsetS: 3600, timezone: 'Europe/Berlin' });
  assert.equal(time.at(start + 360), '11:00:00.360');
  assert.equal(time.atShort(start + 360, 0), '11:00:00');
  assert.equal(time.atShort(start + 360, 1), '11:00:00.4');
  assert.equal(time.title, 'wall clock (Europe/Berlin, UTC+01:00), hh:mm:ss');
  assert.equal(timeFormat({ clock: 'wall', utcOffsetS: -16200 }).at(start), '05:30:00.000');
});

test('formatOffset and formatWall', () => {
  assert.equal(formatOffset(0), '+00:00');
  assert.equal(formatOffset(19800), '+05:30');
  assert.equal(formatOffset(-3600), '-01:00');
  assert.equal(formatWall(start + 999.6, 0, 3), '10:00:01.000');
  assert.equal(formatWall(start + 59999, 0, 0), '10:01:00');
});
