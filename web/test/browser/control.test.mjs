// The process switch of a live page (`canopy record --serve`, control_panel.js): for a
// process started with --heap=off, the page's buttons turn heap sampling on and off
// (the server's GET /api/control says so), and show the process's memory map; a POST
// without the page's token is refused. What sampling then records is the C++ test's
// (tests/integration/profiler_switch_test.cpp).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { screenshot, servingSuite } from './harness.mjs';

// After a failure: the workload ends on SIGTERM (it wrote its PID), and canopy with it.
// Only while canopy still serves: once it has exited, the PID may be another process's.
function endWorkload({ dir, serving }) {
  if (!serving || serving.child.exitCode != null) return;
  const workload = Number(fs.existsSync(path.join(dir, 'pid')) ? fs.readFileSync(path.join(dir, 'pid'), 'utf8') : 0);
  if (workload) process.kill(workload, 'SIGTERM');
}

describe('canopy record --serve: the profiler switch on the page', () => {
  const suite = servingSuite('canopy-control-', endWorkload);

  test('turns heap sampling on and off, and shows the memory map', async () => {
    // The workload writes its PID, so that the test can end it whatever happens.
    const command = ['sh', '-c', 'echo $$ > "$D/pid"; exec "$W" allocate-on-signal 16'];
    const { page, errors } = await suite.serve({ name: 'control', recordArgs: ['--heap=off'], command, viewport: { width: 1400, height: 1000 } });
    const { env, dir, serving } = suite;
    const pid = Number(fs.readFileSync(path.join(dir, 'pid'), 'utf8'));
    const row = page.locator(`[data-testid="control-row"][data-pid="${pid}"]`);
    await row.waitFor({ timeout: 60000 });
    assert.equal(await row.getAttribute('data-heap'), 'off', 'started with --heap=off');
    const serverSays = () => page.evaluate(async (p) => {
      const control = await (await fetch('api/control')).json();
      return control.processes.find((x) => x.pid === p).heap;
    }, pid);

    await row.locator('[data-testid="control-heap-sampling"]').click();
    await page.locator(`[data-testid="control-row"][data-pid="${pid}"][data-heap="on"]`).waitFor({ timeout: 60000 });
    assert.equal(await serverSays(), 'on');
    await page.locator(`[data-testid="control-row"][data-pid="${pid}"] [data-testid="control-heap-sampling"]`).click();
    await page.locator(`[data-testid="control-row"][data-pid="${pid}"][data-heap="off"]`).waitFor({ timeout: 60000 });
    assert.equal(await serverSays(), 'off');

    await page.locator(`[data-testid="control-row"][data-pid="${pid}"] [data-testid="control-memory-map"]`).click();
    const table = page.locator(`[data-testid="control-map-table"][data-pid="${pid}"]`);
    await table.waitFor({ timeout: 60000 });
    const kinds = await table.locator('tr td:first-child').allTextContents();
    for (const kind of ['heap', 'stack', 'file']) assert.ok(kinds.includes(kind), `the memory map's kinds: ${kinds}`);
    await screenshot(page, env, 'live-control');
    // The page went on following meanwhile: the recording's end it shows moved.
    const followed = await page.evaluate(() => window.canopyView.live.updates);
    await page.waitForFunction((seen) => window.canopyView.live.updates > seen, followed, { timeout: 60000 });

    // Only the page's own token switches anything.
    const refused = await page.evaluate(async (p) => {
      const response = await fetch(`api/control/heap-sampling?pid=${p}&on=1`, { method: 'POST' });
      return response.status;
    }, pid);
    assert.equal(refused, 403);
    assert.equal(await serverSays(), 'off');
    assert.deepEqual(errors.filter((e) => !e.includes('403')), []);

    process.kill(pid, 'SIGTERM');
    await page.locator('[data-testid="ended-badge"]').waitFor({ timeout: 60000 });
    // The update that says so empties the panel: no process is left to switch.
    assert.equal(await page.locator('[data-testid="control-row"]').count(), 0);
    assert.equal(await page.locator('[data-testid="control-rows"]').textContent(), 'no live process');
    serving.child.kill('SIGINT');
    assert.deepEqual(await serving.exited, { code: 0, signal: null }, serving.output());
  });
});
