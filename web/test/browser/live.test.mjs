// `canopy record --serve`: the viewer follows the recording while the command runs.
// The workload grows only when the test opens its gates (canopy_workload steps), so
// every step is waited for, never timed: a child appears in the tree and the chart,
// grows, and the page still follows after a reload (a new event stream), the events
// pane's lines staying on screen as its list grows; when the command ends the page says
// so and keeps the whole recording.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { MiB, screenshot, servingSuite, waitReady } from './harness.mjs';

// The child touches 32 MiB at the first gate and 64 MiB more at the second; what it
// holds besides (the program, libc) is a few MiB.
const kFirstMiB = 32;
const kSecondMiB = 64;
const kOwnMiB = 16;

// The gated workload: it waits for the gate `start`, then `steps` waits for `1`, `2`
// and `stop` in the directory D.
const kCommand = ['sh', '-c', 'while [ ! -e "$D/start" ]; do sleep 0.2; done; "$W" steps "$D" ' + `${kFirstMiB} ${kSecondMiB}; echo done`];

// The workload's `steps` process as the page knows it, and what the chart's series
// gives it at its last point (bytes), or null.
function grower(page) {
  return page.evaluate(() => {
    const view = window.canopyView;
    const process = (view.processes || []).find((p) => (p.cmdline || []).includes('steps'));
    if (!process) return null;
    const slice = view.series ? view.series.series.find((s) => s.id === process.id) : null;
    const last = slice && slice.offset + slice.values.length === view.series.t.length ? slice.values.at(-1) : null;
    // The tree is a virtual list: the row is drawn once scrolled to.
    view.revealTreeNode(process.id);
    const row = document.querySelector(`[data-testid="tree-panel"] [data-id="${process.id}"]`);
    return { id: process.id, last, inTree: row != null, ended: process.end_ms != null };
  });
}

// Waits until the chart's last point of the workload's `steps` process is at least
// `bytes`: the page has merged the update that brought them.
function grown(page, bytes) {
  return page.waitForFunction(
    (least) => {
      const view = window.canopyView;
      const p = (view.processes || []).find((x) => (x.cmdline || []).includes('steps'));
      const slice = p && view.series && view.series.series.find((s) => s.id === p.id);
      return slice && slice.offset + slice.values.length === view.series.t.length && slice.values.at(-1) >= least;
    },
    bytes,
    { timeout: 60000 },
  );
}

function open(dir, gate) {
  fs.writeFileSync(path.join(dir, gate), '');
}

// After a failure: the gates let the workload end, and canopy stops serving.
function endWorkload({ dir }) {
  for (const gate of ['start', '1', '2', 'stop']) open(dir, gate);
}

describe('canopy record --serve: the page follows the recording live', () => {
  const suite = servingSuite('canopy-live-', endWorkload);

  test('a child appears and grows, through a reload, and the end is kept', async () => {
    const { page, errors } = await suite.serve({ name: 'live', command: kCommand, viewport: { width: 1400, height: 900 } });
    const { env, dir, serving } = suite;
    const badge = () => page.locator('[data-testid="live-badge"]');
    assert.equal(await badge().count(), 1, 'the header says the command is still running');
    assert.equal(await grower(page), null, 'the gated child has not started yet');

    open(dir, 'start');
    await page.waitForFunction(() => {
      const view = window.canopyView;
      return (view.processes || []).some((p) => (p.cmdline || []).includes('steps'));
    }, null, { timeout: 60000 });
    open(dir, '1');
    await grown(page, kFirstMiB * MiB);
    const first = await grower(page);
    assert.ok(first.inTree, 'the child is in the tree without a reload');
    assert.ok(first.last < (kFirstMiB + kOwnMiB) * MiB, `the first step: ${first.last / MiB} MiB`);
    const updates = await page.evaluate(() => window.canopyView.live.updates);
    assert.ok(updates > 0, 'the page merged updates in');
    await screenshot(page, env, 'live-following');

    // A reload opens a new event stream: the page goes on following from there.
    await page.reload();
    await waitReady(page);
    await page.waitForFunction(() => window.canopyView.live && window.canopyView.live.connected, null, { timeout: 60000 });
    // The events pane with process starts and ends on (off by default), so that its
    // list grows while the page follows: the ends of the child and the shell at `stop`.
    // No line already shown may blink to a placeholder as it grows: the pager keeps its
    // rows on screen until their pages come again.
    for (const kind of ['start', 'end']) {
      const chip = page.locator(`[data-testid="event-kind"][data-kind="${kind}"]`);
      await chip.click();
      assert.equal(await chip.getAttribute('aria-pressed'), 'true', kind);
    }
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="event-row"]').length > 0 &&
      document.querySelectorAll('[data-testid="event-placeholder"]').length === 0, null, { timeout: 60000 });
    const linesBefore = await page.evaluate(() => {
      const before = window.canopyView.events.total;
      window.blinked = [];
      new MutationObserver((records) => {
        for (const { target } of records) {
          if (target.dataset.testid === 'event-placeholder' && Number(target.dataset.index) < before) window.blinked.push(Number(target.dataset.index));
        }
      }).observe(document.querySelector('[data-testid="event-rows"]'), { attributes: true, attributeFilter: ['data-testid'], subtree: true });
      return before;
    });
    open(dir, '2');
    await grown(page, (kFirstMiB + kSecondMiB) * MiB);
    const second = await grower(page);
    assert.ok(second.last < (kFirstMiB + kSecondMiB + kOwnMiB) * MiB, `the second step: ${second.last / MiB} MiB`);
    assert.ok(await page.evaluate(() => window.canopyView.live.updates > 0), 'updates came after the reload');

    open(dir, 'stop');
    await page.locator('[data-testid="ended-badge"]').waitFor({ timeout: 60000 });
    assert.equal(await badge().count(), 0);
    const end = await page.evaluate(async () => {
      const recording = await (await fetch('api/recording')).json();
      const view = window.canopyView;
      return { live: recording.live, endMs: recording.meta.end_ms, pageEndMs: view.endMs, following: view.live.following, view: view.state.view, exit: recording.meta.exit_code };
    });
    assert.equal(end.live, false, JSON.stringify(end));
    assert.equal(end.following, false);
    assert.equal(end.exit, 0);
    assert.equal(end.pageEndMs, end.endMs, 'the page holds the whole recording');
    assert.equal(end.view.to, end.endMs, 'the chart that followed the end shows it');
    const ended = await grower(page);
    assert.ok(ended.ended, 'the child has its end');
    const linesAfter = await page.evaluate(() => window.canopyView.events.total);
    assert.ok(linesAfter > linesBefore, `the events grew while the page followed: ${linesBefore} -> ${linesAfter}`);
    assert.deepEqual(await page.evaluate(() => window.blinked), [], 'no line shown blinked to a placeholder');
    assert.deepEqual(errors, []);

    // It serves the finished recording until Ctrl-C, then exits with the command's status.
    serving.child.kill('SIGINT');
    const exit = await serving.exited;
    assert.deepEqual(exit, { code: 0, signal: null }, serving.output());
  });
});
