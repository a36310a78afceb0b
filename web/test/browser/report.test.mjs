// `canopy report --html`: the same page, self-contained, opened from a file with the
// network cut. It must draw the same chart and list the same processes from the
// embedded data, without a single request leaving the page.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  MiB, chartData, environment, holdChildren, infoRows, kTreeCommand, launchBrowser, paintedShare,
  openReportOffline, pinFirstTickFrom, parseBytes, record, screenshot, tempDir, within,
} from './harness.mjs';

describe('canopy report --html', () => {
  let env;
  let dir;
  let rec;
  let html;
  let browser;

  before(async () => {
    env = environment();
    dir = tempDir('canopy-report-');
    rec = record(env, dir, 'tree', [], kTreeCommand);
    html = path.join(dir, 'tree.html');
    execFileSync(env.bin, ['report', rec.file, '--html', html]);
    browser = await launchBrowser();
  });

  after(async () => {
    if (browser) await browser.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  test('the report draws the recording from its embedded data, offline, with no request', async () => {
    const { page, errors, requests, url } = await openReportOffline(browser, html);
    assert.equal(await page.evaluate(() => window.canopyView.source), 'embedded');

    const chart = await chartData(page);
    const peak = rec.summary.peak_tree_rss_bytes;
    assert.ok(within(chart.yMax, peak, 0.005), `y max ${chart.yMax}, recorded peak ${peak}`);
    const painted = await paintedShare(page);
    assert.ok(painted > 0.2, `only ${(painted * 100).toFixed(1)}% of the plot is painted`);

    // The embedded recording is the API's; pin its peak and read the panel.
    const drawnPeakT = await page.evaluate(() => {
      const { frame } = window.canopyView;
      return frame.t[frame.total.indexOf(Math.max(...frame.total))];
    });
    const expectedPeakT = rec.summary.start_ms + rec.summary.peak_tree_t_ms;
    assert.equal(drawnPeakT, expectedPeakT, 'the embedded series hold the peak tick');
    assert.equal(await pinFirstTickFrom(page, expectedPeakT), expectedPeakT);
    const why = await page.locator('[data-testid="info-why"]').textContent();
    assert.ok(why.includes('nearest recorded point'), why);
    // Each child holds its memory for a second from its peak on, but not all three at
    // once on a loaded machine: each is read where it peaked.
    const processes = await page.evaluate(() => window.canopyView.processes);
    for (const [mib, child] of holdChildren(processes)) {
      await pinFirstTickFrom(page, child.peak_rss_ms);
      const row = (await infoRows(page)).find((r) => r.id === child.id);
      assert.ok(row, `no row for the ${mib} MiB child`);
      assert.equal(row.cells[0].split(' · ')[0], 'canopy_workload');
      assert.equal(row.cells[1], String(child.pid));
      const rss = parseBytes(row.cells[3]);
      assert.ok(rss >= mib * MiB && rss <= (mib + 8) * MiB, `${mib} MiB child shows ${row.cells[3]}`);
    }
    await screenshot(page, env, 'report');

    // The metric switch works from the embedded series too.
    await page.selectOption('[data-testid="metric-select"]', 'cpu');
    await page.waitForFunction(() => document.querySelector('[data-testid="chart"]').dataset.metric === 'cpu');
    assert.ok((await chartData(page)).yLabels.every((label) => label.endsWith('%')));

    assert.deepEqual(requests, [url], 'the report requested nothing but itself');
    assert.deepEqual(errors, []);
  });

  test('the report inlines the page: no external reference is left', () => {
    const text = fs.readFileSync(html, 'utf8');
    assert.ok(!text.includes('<script src='), 'no external script');
    assert.ok(!text.includes('<link rel="stylesheet"'), 'no external stylesheet');
    assert.equal((text.match(/<script id="canopy-data"/g) || []).length, 1);
  });
});
