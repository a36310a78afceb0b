// The tree's peaks are the report's: a child that touches 100 MiB for 30 ms between two
// ticks 500 ms apart has the peak of its kernel exit record (or of a sample, should a
// tick land in those 30 ms: then the two agree as well), and its ancestors' subtree
// peaks hold at least that much.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { formatBytes } from '../../src/format.js';
import { MiB, parseBytes, screenshot, treeViewSuite, waitReady, watchErrors } from './harness.mjs';

describe('canopy view: peaks from exit records', () => {
  const suite = treeViewSuite('canopy-peaks-', {
    name: 'brief', recordArgs: ['-i', '500'], command: ['sh', '-c', '"$W" hold 100 30 brief; sleep 0.6'],
  });

  test('every process shows the peak the report gives, the brief one included', async () => {
    const page = await (await suite.browser.newContext({ viewport: { width: 1600, height: 1000 } })).newPage();
    const errors = watchErrors(page);
    await page.goto(suite.server.url);
    await waitReady(page);
    await page.click('[data-testid="tree-expand-all"]');
    const brief = suite.recording.processes.find((p) => (p.cmdline || []).includes('brief'));
    assert.ok(brief, JSON.stringify(suite.recording.processes));
    assert.equal(suite.rec.summary.top.length, suite.recording.processes.length);
    for (const peak of suite.rec.summary.top) {
      const p = suite.recording.processes.find((x) => x.pid === peak.pid);
      const cells = page.locator(`[data-testid="tree-node"][data-id="${p.id}"] > span`);
      const shown = await cells.nth(3).textContent();
      assert.equal(shown, formatBytes(peak.peak_rss_bytes), `${peak.name} ${peak.pid}`);
      const fromExit = await cells.nth(3).evaluate((cell) => cell.classList.contains('from-exit'));
      assert.equal(fromExit, peak.peak_source === 'exit record', `${peak.name} ${peak.pid}: ${peak.peak_source}`);
    }
    // The workload touched 100 MiB (plus its program).
    assert.ok(brief.peak_rss_bytes >= 100 * MiB && brief.peak_rss_bytes < 110 * MiB, String(brief.peak_rss_bytes));
    // The shell above it held at least that much at one moment.
    const root = suite.recording.processes.find((p) => p.id === brief.parent);
    const subtree = (await page.locator(`[data-testid="tree-node"][data-id="${root.id}"] [data-testid="tree-subtree"]`).textContent());
    assert.ok(parseBytes(subtree.replace('≥ ', '')) >= brief.peak_rss_bytes - 0.05 * MiB, subtree);
    assert.equal(subtree.startsWith('≥ '), root.subtree_peak_at_least);
    // Each row tells a process from others of its name as the server's short command does.
    assert.ok(brief.short, JSON.stringify(brief));
    const briefRow = page.locator(`[data-testid="tree-node"][data-id="${brief.id}"]`);
    assert.equal(await briefRow.locator('.name').textContent(), brief.name);
    assert.equal(await briefRow.locator('.short').textContent(), brief.short);
    await screenshot(page, suite.env, 'view-tree-exit-peaks');
    assert.deepEqual(errors, []);
  });
});

// A tree that ended before a tick could sample it (ticks a minute apart): no band to
// draw, and no sum to take its peak from, but the workload's own peak says the tree
// held at least that much. The header said "peak 0 B" over an empty chart.
describe('canopy view: a tree no tick sampled', () => {
  const suite = treeViewSuite('canopy-unsampled-', {
    name: 'unsampled', recordArgs: ['-i', '60000'], command: ['sh', '-c', '"$W" hold 50 30'],
  });

  test('says its peak is at least its process\'s, and why the chart is empty', async () => {
    const page = await (await suite.browser.newContext({ viewport: { width: 1600, height: 1000 } })).newPage();
    const errors = watchErrors(page);
    await page.goto(suite.server.url);
    await waitReady(page);
    const peak = await page.locator('.fact', { has: page.locator('dt', { hasText: /^peak$/ }) }).locator('dd').textContent();
    assert.ok(peak.startsWith('≥ '), peak);
    assert.ok(parseBytes(peak.slice(2)) >= 50 * MiB, peak);
    assert.equal(suite.rec.summary.peak_tree_at_least, true);
    assert.equal(peak, `≥ ${formatBytes(suite.rec.summary.peak_tree_rss_bytes)}`, 'the report\'s figure');
    const note = page.locator('[data-testid="chart-note"]');
    assert.ok(await note.isVisible());
    assert.match(await note.textContent(), /^No tick sampled the tree: it ended before one could \(one every 60000 ms\)/);
    await screenshot(page, suite.env, 'view-unsampled-tree');
    assert.deepEqual(errors, []);
  });
});
