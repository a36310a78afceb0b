import assert from 'node:assert/strict';
import { test } from 'node:test';
import { memoryMapRows } from '../../src/control_panel.js';

test('memoryMapRows puts the largest resident group first, sizes in binary units', () => {
  const rows = memoryMapRows({
    pid: 7,
    groups: [
      { kind: 'file', mappings: 40, size_bytes: 8 << 20, rss_bytes: 2 << 20, pss_bytes: 1 << 20, anonymous_bytes: 0, swap_bytes: 0 },
      { kind: 'heap', mappings: 1, size_bytes: 200 << 20, rss_bytes: 192 << 20, pss_bytes: 192 << 20, anonymous_bytes: 192 << 20, swap_bytes: 1024 },
    ],
  });
  assert.deepEqual(rows, [
    ['heap', '1', '192.0 MiB', '192.0 MiB', '192.0 MiB', '1.0 KiB', '200.0 MiB'],
    ['file', '40', '2.0 MiB', '1.0 MiB', '0 B', '0 B', '8.0 MiB'],
  ]);
  assert.deepEqual(memoryMapRows({ groups: [] }), []);
  assert.deepEqual(memoryMapRows(null), []);
});
