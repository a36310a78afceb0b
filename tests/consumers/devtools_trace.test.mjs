// canopy export --format chrome, read by a real consumer: the trace engine of Chrome
// DevTools' Performance panel (@paulirish/trace_engine, the same code that opens a
// trace file in DevTools). Perfetto UI and chrome://tracing cannot run here (no
// Perfetto package; Debian's headless Chromium disables chrome://tracing), so this is
// the one real reader the tests run. It reads the golden file (which the unit tests
// prove is byte for byte what canopy writes) and, when ctest passes CANOPY_BIN and
// CANOPY_WORKLOAD, the export of a real recording of the workload's tree.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

import * as Trace from '@paulirish/trace_engine/models/trace/trace.js';

// The engine measures layout with DOMRect, which Node lacks (its README says so).
globalThis.DOMRect ??= class DOMRect {
  constructor(x = 0, y = 0, width = 0, height = 0) {
    Object.assign(this, { x, y, width, height });
  }
};

const here = path.dirname(fileURLToPath(import.meta.url));

async function parse(file) {
  const trace = JSON.parse(fs.readFileSync(file, 'utf8'));
  const model = Trace.TraceModel.Model.createWithAllHandlers();
  await model.parse(trace.traceEvents);
  return { trace, data: model.parsedTrace().data };
}

// Each process's lifetime, as the engine placed it on its main thread, by PID.
function lifetimes(data) {
  const found = [];
  for (const [pid, process] of data.Renderer.processes) {
    for (const [tid, thread] of process.threads) {
      assert.equal(tid, pid, 'on the main thread');
      for (const e of thread.entries) found.push({ pid, name: thread.name, ts: e.ts, dur: e.dur });
    }
  }
  return found.sort((a, b) => a.pid - b.pid);
}

test('the fixture trace opens with its processes, lifetimes and bounds', async () => {
  const { data } = await parse(path.join(here, '../fixtures/export/chrome.json'));
  assert.deepEqual([...data.Meta.processNames.keys()].sort(), [4242, 4250, 4251, 4260]);
  // A process's track by its name and the words that tell it apart; none for a bare name.
  assert.equal(data.Meta.processNames.get(4242).args.name, 'make -j2');
  assert.equal(data.Meta.processNames.get(4251).args.name, 'ld app');
  assert.equal(data.Meta.processNames.get(4260).args.name, 'brief');
  const t0 = 1795341600000000; // µs: 2026-11-22 10:00:00 UTC
  assert.equal(data.Meta.traceBounds.min, t0 - 50000); // make started 50 ms before the first tick
  assert.equal(data.Meta.traceBounds.max, t0 + 1000000);
  assert.deepEqual(lifetimes(data), [
    { pid: 4242, name: 'make', ts: t0 - 50000, dur: 1050000 },
    { pid: 4250, name: 'cc1, "x"', ts: t0 + 200000, dur: 450000 },
    { pid: 4251, name: 'ld', ts: t0 + 500000, dur: 500000 },
    { pid: 4260, name: 'brief', ts: t0 + 310000, dur: 30000 },
  ]);
  assert.equal(data.Warnings.perEvent.size, 0);
});

test('a real recording exported as chrome opens too', { skip: !process.env.CANOPY_BIN && 'CANOPY_BIN not set' },
  async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'canopy-consumer-'));
    try {
      const recording = path.join(dir, 'tree.canopy');
      const exported = path.join(dir, 'tree.json');
      execFileSync(process.env.CANOPY_BIN, ['record', '-q', '-o', recording, process.env.CANOPY_WORKLOAD, 'tree']);
      execFileSync(process.env.CANOPY_BIN, ['export', recording, '--format', 'chrome', '-o', exported]);
      const summary = JSON.parse(execFileSync(process.env.CANOPY_BIN, ['report', '--json', recording]).toString());
      const { trace, data } = await parse(exported);
      assert.equal(data.Meta.processNames.size, summary.processes);
      const lived = lifetimes(data);
      assert.equal(lived.length, summary.processes, 'one lifetime per process');
      for (const span of lived) {
        assert.ok(span.dur > 0);
        assert.equal(span.name, 'canopy_workload');
        // Within the recording (a process may have started a moment before canopy saw it).
        assert.ok(span.ts >= summary.start_ms * 1000 - 1e6, `${span.pid} starts at ${span.ts}`);
        assert.ok(span.ts + span.dur <= (summary.start_ms + summary.wall_ms) * 1000 + 1e6, `${span.pid} ends late`);
      }
      const counters = trace.traceEvents.filter((e) => e.ph === 'C' && e.name === 'Resident');
      const peak = Math.max(...counters.map((e) => e.args.bytes));
      assert.ok(peak >= 150 * 2 ** 20 && peak < 160 * 2 ** 20, `the 150 MiB child's counter peaks at ${peak}`);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
