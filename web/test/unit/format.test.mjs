import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  byteUnitFor, formatAbsolute, formatBytes, formatBytesIn, formatCpuTime, formatDuration, formatElapsed,
  formatExit, formatPercent, shellQuote, signalName,
} from '../../src/format.js';

test('formatBytes prints one decimal in binary units, like canopy report', () => {
  assert.equal(formatBytes(0), '0 B');
  assert.equal(formatBytes(1023), '1023 B');
  assert.equal(formatBytes(1024), '1.0 KiB');
  assert.equal(formatBytes(1536), '1.5 KiB');
  assert.equal(formatBytes(383373312), '365.6 MiB'); // 383373312 / 1048576 = 365.61
  assert.equal(formatBytes(160047104), '152.6 MiB'); // the 150 MiB child with its binary
  assert.equal(formatBytes(3 * 1024 ** 3), '3.0 GiB');
  assert.equal(formatBytes(null), '—');
  assert.equal(formatBytes(-2048), '-2.0 KiB');
});

test('formatBytes carries 1023.96 MiB to 1.0 GiB instead of printing 1024.0 MiB', () => {
  assert.equal(formatBytes(1024 ** 3 - 40000), '1.0 GiB');
});

test('byteUnitFor and formatBytesIn label a whole axis in one unit', () => {
  assert.equal(byteUnitFor(1000), 0);
  assert.equal(byteUnitFor(383373312), 2);
  assert.equal(byteUnitFor(4351012864), 3);
  assert.equal(formatBytesIn(0, 3), '0');
  assert.equal(formatBytesIn(512 * 1024 ** 2, 3), '0.5 GiB');
  assert.equal(formatBytesIn(100 * 1024 ** 2, 2), '100 MiB');
  assert.equal(formatBytesIn(0.25 * 1024 ** 3, 3), '0.25 GiB');
});

test('formatPercent keeps a decimal under 10%', () => {
  assert.equal(formatPercent(0), '0%');
  assert.equal(formatPercent(2.54), '2.5%');
  assert.equal(formatPercent(95.4), '95%');
  assert.equal(formatPercent(770), '770%');
  assert.equal(formatPercent(undefined), '—');
});

test('formatElapsed is m:ss under an hour and h:mm:ss above', () => {
  assert.equal(formatElapsed(0), '0:00');
  assert.equal(formatElapsed(59499), '0:59');
  assert.equal(formatElapsed(61000), '1:01');
  assert.equal(formatElapsed(3599000), '59:59');
  assert.equal(formatElapsed(3600000), '1:00:00');
  assert.equal(formatElapsed(3723000), '1:02:03');
  assert.equal(formatElapsed(601, 3), '0:00.601');
  assert.equal(formatElapsed(1250, 2), '0:01.25');
  assert.equal(formatElapsed(59999, 1), '1:00.0'); // rounds up into the next minute
  assert.equal(formatElapsed(-1500, 1), '-0:01.5');
});

test('formatDuration', () => {
  assert.equal(formatDuration(450), '450 ms');
  assert.equal(formatDuration(2032), '2.03 s');
  assert.equal(formatDuration(43000), '43.0 s');
  assert.equal(formatDuration(243000), '4 min 03 s');
  assert.equal(formatDuration(3720000), '1 h 02 min');
  assert.equal(formatDuration(null), '—');
});

test('formatCpuTime', () => {
  assert.equal(formatCpuTime(141943032), '0.142 s');
  assert.equal(formatCpuTime(12.3e9), '12.3 s');
  assert.equal(formatCpuTime(null), '—');
});

test('formatAbsolute shows the wall clock of the recording, not of the viewer', () => {
  // 1700000000000 ms = 2023-11-14 22:13:20 UTC
  assert.equal(formatAbsolute(1700000000000, 0), '2023-11-14 22:13:20 +00:00');
  assert.equal(formatAbsolute(1700000000000, 3600), '2023-11-14 23:13:20 +01:00');
  assert.equal(formatAbsolute(1700000000000, -9000), '2023-11-14 19:43:20 -02:30');
});

test('shellQuote quotes what a shell would split or expand', () => {
  assert.equal(shellQuote(['make', '-j8']), 'make -j8');
  assert.equal(shellQuote(['sh', '-c', '"$0" tree & sleep 0.5']), `sh -c '"$0" tree & sleep 0.5'`);
  assert.equal(shellQuote(["it's"]), `'it'\\''s'`);
  assert.equal(shellQuote(['']), "''");
  assert.equal(shellQuote(['<script>']), "'<script>'");
  assert.equal(shellQuote(['echo', '#x', '~']), "echo '#x' '~'");
});

test('shellQuote keeps a word with a control character on one line, as $\'...\'', () => {
  assert.equal(shellQuote(['python3', '-c', "\nprint('x')\n"]), "python3 -c $'\\nprint(\\'x\\')\\n'");
  assert.equal(shellQuote(['printf', 'a\tb\\c\x1b[0m\x7f']), "printf $'a\\tb\\\\c\\e[0m\\x7f'");
});

test('signal names and exits', () => {
  assert.equal(signalName(9), 'SIGKILL');
  assert.equal(signalName(15), 'SIGTERM');
  assert.equal(signalName(64), 'signal 64');
  assert.equal(formatExit(0, null), 'exit 0');
  assert.equal(formatExit(null, 9), 'killed by SIGKILL');
  assert.equal(formatExit(null, null), null);
});
