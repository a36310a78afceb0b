// The CPU profile panes in a real Chromium, in `canopy view` and in `report --html`, on
// a real recording of the CPU workload (tests/workload/cpu_workload.c: `split 2` spends
// 2 s of its CPU time, 7 parts in hot_function for every 3 in cold_function; then a
// shell sleeps 1.2 s) made with --cpu-profile=999, about 2000 samples. What the page draws is checked against the
// recording's own account: the API's sample count and `canopy profile --from --to`.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  environment, launchBrowser, openReportOffline, paneShot, profileEnvironment, record, startView, tempDir, waitReady,
  watchErrors,
} from './harness.mjs';

// `canopy profile --json` of the range [from, to) (ms since the epoch) of the recording.
function profileOf(env, file, startMs, fromMs, toMs) {
  const args = ['profile', file, '--json', '--top', '100', '--from', `${fromMs - startMs}ms`, '--to', `${toMs - startMs}ms`];
  return JSON.parse(execFileSync(env.bin, args).toString());
}

function totalOf(profile, name) {
  const row = profile.groups[0].by_total.find((r) => r.function === name);
  return row ? row.total_samples : 0;
}

async function profilesReady(page) {
  await page.waitForFunction(() => window.canopyView.profiles && window.canopyView.profiles.heatmap
    && window.canopyView.profiles.drawn && window.canopyView.profiles.drawn.cells > 0);
  return page.evaluate(() => window.canopyView.profiles);
}

// Drags on the heat map from cell a to cell b ({second, row}); the page converts back.
async function dragCells(page, a, b) {
  await page.locator('[data-testid="cpu-heatmap-canvas"]').scrollIntoViewIfNeeded();
  const points = await page.evaluate(({ a, b }) => {
    const heat = document.querySelector('[data-testid="cpu-heatmap-canvas"]');
    const over = document.querySelector('[data-testid="chart"] .u-over').getBoundingClientRect();
    const own = heat.getBoundingClientRect();
    const { view } = window.canopyView.state;
    const { startMs } = window.canopyView;
    // The middle of the second, or of its part before the recording's end.
    const tx = (cell) => Math.min(startMs + cell.second * 1000 + 500, (startMs + cell.second * 1000 + view.to) / 2);
    const x = (cell) => over.left + ((tx(cell) - view.from) / (view.to - view.from)) * over.width;
    const y = (cell) => own.top + cell.row * 3 + 1.5;
    return { ax: x(a), ay: y(a), bx: x(b), by: y(b) };
  }, { a, b });
  await page.mouse.move(points.ax, points.ay);
  await page.mouse.down();
  await page.mouse.move((points.ax + points.bx) / 2, (points.ay + points.by) / 2, { steps: 4 });
  await page.mouse.move(points.bx, points.by, { steps: 4 });
  await page.mouse.up();
}

async function rangeFlame(page, previous) {
  await page.waitForFunction((before) => {
    const p = window.canopyView.profiles;
    return p.range && p.flame && p.flame.root === p.range.samples && JSON.stringify(p.range) !== before;
  }, JSON.stringify(previous));
  return page.evaluate(() => window.canopyView.profiles);
}

// The checks both pages share: the heat map, a range, its flame graph, search and zoom.
async function checkPanes(page, env, rec, name) {
  const profiles = await profilesReady(page);
  assert.equal(await page.locator('[data-testid="heap-panel"]').isHidden(), true, 'no heap pane without a heap profile');
  assert.equal(await page.locator('[data-testid="profiles-link"]').textContent(), 'CPU ↓', 'the header names the profile');
  const recorded = profiles.cpu.samples;
  // The whole tree in full view: every sample in a drawn cell.
  assert.equal(profiles.heatmap.samples, recorded);
  assert.equal(profiles.drawn.samples, recorded, 'the drawn cells hold every sample');
  assert.deepEqual(profiles.drawn.labels, ['+0 ms', '+500 ms', '+1000 ms'], 'the rows are times within their second');
  const whole = JSON.parse(execFileSync(env.bin, ['profile', rec.file, '--json']).toString());
  assert.equal(recorded, whole.samples, 'the page counts the samples canopy profile counts');

  // The heat map's time axis is the chart's: a second sits under the same second of the
  // chart, in full view and zoomed in (key +: half the range around its middle).
  const aligned = () => page.evaluate(() => {
    const view = window.canopyView;
    const over = document.querySelector('[data-testid="chart"] .u-over').getBoundingClientRect();
    const t = view.startMs + 1000;
    return { chart: over.left + view.chart.valToPos(1, 'x'), heat: view.profiles.heatX(t) };
  });
  const full = await aligned();
  assert.ok(Math.abs(full.chart - full.heat) < 1, `second 1 at ${full.heat} under the chart's ${full.chart}`);
  await page.keyboard.press('+');
  await page.waitForFunction((width) => window.canopyView.state.view.to - window.canopyView.state.view.from < width,
    (await page.evaluate(() => window.canopyView.endMs - window.canopyView.startMs)));
  await page.waitForFunction(() => {
    const over = document.querySelector('[data-testid="chart"] .u-over').getBoundingClientRect();
    const view = window.canopyView;
    return Math.abs(over.left + view.chart.valToPos(1, 'x') - view.profiles.heatX(view.startMs + 1000)) < 1;
  });
  await page.keyboard.press('0');
  await page.waitForFunction(() => window.canopyView.state.view.from === window.canopyView.startMs
    && window.canopyView.state.view.to === window.canopyView.endMs);

  // Before any drag, the flame graph is the whole recording's: every sample.
  const wholeFlame = await rangeFlame(page, null);
  assert.equal(wholeFlame.range.whole, true);
  assert.equal(wholeFlame.flame.root, recorded, 'the whole recording holds every sample');
  assert.match(await page.locator('[data-testid="cpu-flame-title"]').textContent(), /the whole tree, the whole recording/);
  assert.equal(await page.locator('[data-testid="cpu-flame-whole"]').isDisabled(), true);

  // From the first cell of second 0 to the middle of second 1: 1.5 s of the 2 s of work.
  await dragCells(page, { second: 0, row: 0 }, { second: 1, row: 24 });
  const selected = await rangeFlame(page, wholeFlame.range);
  assert.equal(selected.range.whole, false);
  const start = await page.evaluate(() => window.canopyView.startMs);
  assert.equal(selected.range.from, start);
  assert.equal(selected.range.to, start + 1500);
  const cli = profileOf(env, rec.file, start, selected.range.from, selected.range.to);
  assert.equal(selected.range.samples, cli.samples, 'the range holds the samples canopy profile selects');
  assert.equal(selected.flame.root, cli.samples, 'the root is every sample of the range');
  assert.ok(cli.samples > 0);

  // Search: hot_function is marked, and its matched total is the profile's.
  await page.fill('[data-testid="cpu-flame-search"]', 'hot_func');
  await page.waitForFunction(() => window.canopyView.profiles.flame.matched > 0);
  const searched = await page.evaluate(() => window.canopyView.profiles.flame);
  assert.equal(searched.matchedTotal, totalOf(cli, 'hot_function'));
  const marked = await page.locator('[data-testid="cpu-flame"] .flame-box.matched').first().getAttribute('data-name');
  assert.equal(marked, 'hot_function');
  await paneShot(page, env, `${name}-cpu-search`);

  // Zoom into hot_function and back out.
  await page.locator('[data-testid="cpu-flame"] .flame-box[data-name="hot_function"]').first().click();
  await page.waitForFunction(() => window.canopyView.profiles.flame.focus === 'hot_function');
  await paneShot(page, env, `${name}-cpu-zoom`);
  await page.click('[data-testid="cpu-flame-reset"]');
  await page.waitForFunction(() => window.canopyView.profiles.flame.focus === 'all');

  // Rows of the idle tail (the command's last 1.2 s sleep): the range holds nothing, and
  // the pane says so. Taken 600 ms before the end, whose column is drawn 600 ms wide at
  // least, however the work's wall time fell (stretched when the machine is busy).
  const idle = (await page.evaluate(() => window.canopyView.endMs)) - start - 600;
  const a = { second: Math.floor(idle / 1000), row: Math.floor((idle % 1000) / 20) };
  await dragCells(page, a, { second: a.second, row: Math.min(49, a.row + 5) });
  const empty = await rangeFlame(page, selected.range);
  assert.equal(empty.range.samples, 0);
  assert.match(await page.locator('[data-testid="cpu-flame-message"]').textContent(), /No CPU samples of the whole tree/);

  // And back to the whole recording.
  await page.click('[data-testid="cpu-flame-whole"]');
  const again = await rangeFlame(page, empty.range);
  assert.equal(again.range.whole, true);
  assert.equal(again.flame.root, recorded);
}

describe('CPU profile panes', () => {
  let env;
  let cpuWorkload;
  let dir;
  let rec;
  let browser;

  before(async () => {
    env = environment();
    ({ cpuWorkload } = profileEnvironment());
    dir = tempDir('canopy-cpu-');
    rec = record(env, dir, 'cpu', ['--cpu-profile=999'], ['sh', '-c', '"$0" split 2; sleep 1.2', cpuWorkload]);
    browser = await launchBrowser();
  });

  after(async () => {
    if (browser) await browser.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  test('canopy view: the heat map, a range, its flame graph, search and zoom', async () => {
    const server = await startView(env, rec.file);
    try {
      const page = await (await browser.newContext({ viewport: { width: 1600, height: 1000 } })).newPage();
      const errors = watchErrors(page);
      await page.goto(server.url);
      await waitReady(page);
      // The API's cells sum to its sample count.
      const heatmap = await (await fetch(`${server.url}api/cpu/heatmap`)).json();
      assert.equal(heatmap.cells.reduce((sum, cell) => sum + cell[2], 0), heatmap.samples);
      assert.ok(heatmap.cells.every((cell) => cell[2] > 0));
      await checkPanes(page, env, rec, 'view');
      assert.deepEqual(errors, []);
    } finally {
      server.stop();
    }
  });

  test('a recording without profiles shows no profile pane', async () => {
    const plain = record(env, dir, 'plain', [], [cpuWorkload, 'split', '0.2']);
    const server = await startView(env, plain.file);
    try {
      const page = await (await browser.newContext({ viewport: { width: 1600, height: 1000 } })).newPage();
      const errors = watchErrors(page);
      await page.goto(server.url);
      await waitReady(page);
      assert.equal(await page.locator('[data-testid="profiles"]').isHidden(), true);
      assert.equal(await page.evaluate(() => document.body.classList.contains('has-profiles')), false);
      assert.deepEqual(errors, []);
    } finally {
      server.stop();
    }
  });

  test('report --html: the same panes from the embedded profile, offline', async () => {
    const html = path.join(dir, 'cpu.html');
    execFileSync(env.bin, ['report', rec.file, '--html', html]);
    const { page, errors, requests, url } = await openReportOffline(browser, html);
    await checkPanes(page, env, rec, 'report');
    assert.deepEqual(requests, [url], 'the report requested nothing but itself');
    assert.deepEqual(errors, []);
  });
});
