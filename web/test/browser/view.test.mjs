// `canopy view` in a real Chromium, on a real recording of the workload's tree: the
// chart, the information panel, the metric switch, grouping, highlight, the tree and the
// events pane, checked against the figures the recording itself reports.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import {
  MiB, chartData, clickBandOf, clickChartAt, docsScreenshot, holdChildren, infoRows, paintedShare, parseBytes, pinFirstTickFrom,
  screenshot, treeViewSuite, waitReady, watchErrors, within,
} from './harness.mjs';

describe('canopy view', () => {
  const suite = treeViewSuite('canopy-view-');
  let events;
  let peakT;

  before(async () => {
    events = (await (await fetch(`${suite.server.url}api/events`)).json()).events;
    peakT = suite.rec.summary.start_ms + suite.rec.summary.peak_tree_t_ms;
  });

  async function open(viewport = { width: 1600, height: 1000 }) {
    const page = await (await suite.browser.newContext({ viewport })).newPage();
    const errors = watchErrors(page);
    await page.goto(suite.server.url);
    await waitReady(page);
    return { page, errors };
  }

  const processIds = (name) => suite.recording.processes.filter((p) => p.name === name).map((p) => p.id);

  test('the chart is drawn and its y axis tops at the recorded peak', async () => {
    const { page, errors } = await open();
    const chart = await chartData(page);
    const peak = suite.rec.summary.peak_tree_rss_bytes;
    assert.ok(within(chart.yMax, peak, 0.005), `y max ${chart.yMax}, recorded peak ${peak}`);
    assert.equal(chart.dataset.metric, 'rss');
    assert.equal(chart.xMin, 0);
    assert.ok(within(chart.xMax * 1000, suite.recording.meta.end_ms - suite.recording.meta.start_ms, 0.001));
    assert.ok(chart.yLabels.some((label) => label.endsWith(' MiB')), `y labels ${chart.yLabels}`);
    // The three children alone fill 300 of the peak's ~366 MiB for most of the run.
    const painted = await paintedShare(page);
    assert.ok(painted > 0.2, `only ${(painted * 100).toFixed(1)}% of the plot is painted`);
    const header = await page.locator('[data-testid="header"]').textContent();
    assert.ok(header.includes(`${(peak / MiB).toFixed(1)} MiB`), header);
    assert.ok(header.includes(`sh -c '"$W" tree & sleep 0.5; exec "$W" hold 30 1500'`), header);
    await screenshot(page, suite.env, 'view-default');
    await docsScreenshot(page);
    assert.deepEqual(errors, []);
  });

  test('pinned, the information panel lists the 50, 100 and 150 MiB children at their peaks', async () => {
    const { page, errors } = await open();
    assert.equal(await pinFirstTickFrom(page, peakT), peakT);
    assert.equal(await page.evaluate(() => window.canopyView.state.selectedT), peakT);
    assert.equal(await page.locator('[data-testid="pinned-time"]').getAttribute('data-t'), String(peakT));
    const rows = await infoRows(page);
    const residents = rows.map((r) => parseBytes(r.cells[3]));
    assert.deepEqual(residents, [...residents].sort((a, b) => b - a), 'rows sorted by resident, largest first');
    const totals = await page.locator('[data-testid="info-totals"]').textContent();
    assert.ok(totals.includes(`processes${rows.length}`), totals);

    // Each child holds its memory for a second from its peak on, but not all three at
    // once on a loaded machine: each is read where it peaked.
    const children = holdChildren(suite.recording.processes);
    assert.deepEqual([...children.keys()].sort((a, b) => a - b), [50, 100, 150]);
    for (const [mib, child] of children) {
      await pinFirstTickFrom(page, child.peak_rss_ms);
      const row = (await infoRows(page)).find((r) => r.id === child.id);
      assert.ok(row, `no row for the ${mib} MiB child (id ${child.id})`);
      const [name, pid, ppid, resident, anon] = row.cells;
      // The name, and the short command: the first argument (`hold`).
      assert.equal(name, 'canopy_workload · hold');
      assert.equal(pid, String(child.pid));
      assert.equal(ppid, String(child.ppid));
      // It touched exactly `mib` MiB of anonymous memory; the binary adds a few MiB.
      const rss = parseBytes(resident);
      assert.ok(rss >= mib * MiB && rss <= (mib + 8) * MiB, `${mib} MiB child shows ${resident}`);
      assert.ok(within(parseBytes(anon), mib * MiB, 0.03), `${mib} MiB child's anon shows ${anon}`);
    }
    assert.deepEqual(errors, []);
  });

  test('the metric switch redraws CPU and anon, with their own y axis', async () => {
    const { page, errors } = await open();
    const cpuResponse = page.waitForResponse((r) => r.url().includes('api/series') && r.url().includes('metric=cpu'));
    await page.selectOption('[data-testid="metric-select"]', 'cpu');
    const cpu = await (await cpuResponse).json();
    await page.waitForFunction(() => document.querySelector('[data-testid="chart"]').dataset.metric === 'cpu');
    let chart = await chartData(page);
    // The top is the highest total, or the machine's ceiling (100% per CPU) once the
    // total reaches a quarter of it.
    const cpuPeak = Math.max(...cpu.total);
    const ceiling = 100 * suite.recording.meta.cpu_count;
    assert.equal(chart.yMax, cpuPeak >= ceiling / 4 ? Math.max(cpuPeak, ceiling) : cpuPeak);
    // In percent of one core: above 0, and not a unit off. A tick's rate is what each
    // process used between its reads over the ticks' interval, so a sampler held up by
    // a loaded machine can show a busy tick above the machine's ceiling; by no more
    // than the read came late, far from a factor of ten.
    assert.ok(chart.yMax > 0 && chart.yMax < 100 * suite.recording.meta.cpu_count * 10, `cpu y max ${chart.yMax}%`);
    assert.ok(chart.yLabels.every((label) => label.endsWith('%')), `y labels ${chart.yLabels}`);
    assert.equal(await page.evaluate(() => window.canopyView.state.metric), 'cpu');
    await screenshot(page, suite.env, 'view-cpu');

    const anonResponse = page.waitForResponse((r) => r.url().includes('api/series') && r.url().includes('metric=anon'));
    await page.selectOption('[data-testid="metric-select"]', 'anon');
    const anon = await (await anonResponse).json();
    await page.waitForFunction(() => document.querySelector('[data-testid="chart"]').dataset.metric === 'anon');
    chart = await chartData(page);
    assert.equal(chart.yMax, Math.max(...anon.total));
    // The children's 300 MiB are anonymous; resident adds the binaries' file pages.
    assert.ok(chart.yMax >= 300 * MiB && chart.yMax < suite.rec.summary.peak_tree_rss_bytes, `anon y max ${chart.yMax}`);
    assert.deepEqual(errors, []);
  });

  test('MemAvailable is off by default; shown, the y axis reaches it; not for CPU', async () => {
    const { page, errors } = await open();
    assert.equal(await page.isChecked('[data-testid="available-toggle"]'), false);
    assert.equal(await page.evaluate(() => window.canopyView.chart.series[3].show), false);
    await page.click('[data-testid="available-toggle"]');
    await page.waitForFunction(() => window.canopyView.chart.series[3].show);
    const available = await page.evaluate(() => window.canopyView.frame.available.filter((v) => v != null));
    // The machine's available memory: gigabytes, far above the tree's 366 MiB.
    const expected = Math.max(suite.rec.summary.peak_tree_rss_bytes, ...available);
    assert.ok(Math.max(...available) > suite.rec.summary.peak_tree_rss_bytes);
    assert.equal((await chartData(page)).yMax, expected);
    await page.selectOption('[data-testid="metric-select"]', 'cpu');
    await page.waitForFunction(() => document.querySelector('[data-testid="chart"]').dataset.metric === 'cpu');
    assert.equal(await page.isDisabled('[data-testid="available-toggle"]'), true);
    assert.ok((await chartData(page)).yMax < 1000, 'the CPU axis ignores MemAvailable');
    assert.deepEqual(errors, []);
  });

  test('grouping by name makes the canopy_workload processes one band', async () => {
    const { page, errors } = await open();
    const single = await chartData(page);
    const workloadLayers = single.layers.filter((layer) => layer.label.startsWith('canopy_workload '));
    assert.ok(workloadLayers.length >= 5, `${workloadLayers.length} canopy_workload bands`);
    assert.equal(single.dataset.grouped, 'false');
    await page.click('[data-testid="group-toggle"]');
    await page.waitForFunction(() => document.querySelector('[data-testid="chart"]').dataset.grouped === 'true');
    const grouped = await chartData(page);
    const names = new Set(single.layers.map((layer) => layer.label.split(' ')[0]));
    assert.equal(grouped.layers.length, names.size);
    const group = grouped.layers.filter((layer) => layer.label.startsWith('canopy_workload ×'));
    assert.equal(group.length, 1);
    assert.deepEqual([...group[0].ids].sort((a, b) => a - b), workloadLayers.flatMap((l) => l.ids).sort((a, b) => a - b));
    assert.equal(group[0].label, `canopy_workload ×${workloadLayers.length}`);
    assert.equal(grouped.yMax, single.yMax);
    assert.equal(await page.evaluate(() => window.canopyView.state.grouped), true);
    await screenshot(page, suite.env, 'view-grouped');
    assert.deepEqual(errors, []);
  });

  test("a group's band, highlight and panel row give one count: the recording's processes of that name", async () => {
    const { page, errors } = await open();
    await page.click('[data-testid="group-toggle"]');
    await page.waitForFunction(() => document.querySelector('[data-testid="chart"]').dataset.grouped === 'true');
    const ids = processIds('canopy_workload');
    const count = ids.length;
    // A drawn tick late in the run, where fewer of them are alive than the run had.
    const drawn = await page.evaluate(() => window.canopyView.frame.t);
    let moment = null;
    for (let i = drawn.length - 1; i >= 0 && !moment; i--) {
      const at = await (await fetch(`${suite.server.url}api/at?t=${drawn[i]}`)).json();
      const alive = at.processes.filter((p) => ids.includes(p.id) && p.rss > 0);
      if (alive.length >= 1 && alive.length < count) moment = { t: drawn[i], alive };
    }
    assert.ok(moment, `no tick with some but not all of the ${count} canopy_workload processes alive`);
    await clickBandOf(page, moment.alive[0].id, moment.t);
    const highlighted = await page.evaluate(() => window.canopyView.state.highlighted);
    assert.equal(highlighted.kind, 'group');
    const label = `canopy_workload ×${count}`;
    assert.equal(await page.locator('.chart-tip .tip-label').textContent(), label);
    assert.equal(await page.locator('[data-testid="highlight-text"]').textContent(), label);
    assert.equal(await page.locator('[data-testid="highlight-label"]').getAttribute('title'),
      `${count} processes named canopy_workload in the whole recording`);
    const row = page.locator('[data-testid="info-row"][data-group="canopy_workload"]');
    await page.waitForFunction((t) => Number(document.querySelector('[data-testid="info-panel"]').dataset.t) === t, moment.t);
    assert.equal(await row.locator('span').nth(1).textContent(), `×${count}`);
    const aliveThere = (await (await fetch(`${suite.server.url}api/at?t=${moment.t}`)).json()).processes.filter((p) => ids.includes(p.id)).length;
    assert.ok((await row.getAttribute('title')).endsWith(`; ${aliveThere} alive at this moment, their figures summed here`));
    await screenshot(page, suite.env, 'view-group-count');
    assert.deepEqual(errors, []);
  });

  test('a highlight made on the chart, the panel or the tree shows everywhere', async () => {
    const { page, errors } = await open();
    const child = holdChildren(suite.recording.processes).get(150);
    const drawn = await page.evaluate(() => window.canopyView.frame.t);
    await clickBandOf(page, child.id, drawn.includes(peakT) ? peakT : drawn[Math.floor(drawn.length / 3)]);
    let highlighted = await page.evaluate(() => window.canopyView.state.highlighted);
    assert.deepEqual(highlighted.ids, [child.id]);
    await page.waitForSelector(`[data-testid="tree-node"][data-id="${child.id}"].lit`);
    await page.waitForSelector(`[data-testid="info-row"][data-id="${child.id}"].lit`);
    await screenshot(page, suite.env, 'view-highlight');
    // Esc clears it, and the pin.
    await page.keyboard.press('Escape');
    highlighted = await page.evaluate(() => window.canopyView.state.highlighted);
    assert.equal(highlighted, null);
    assert.equal(await page.evaluate(() => window.canopyView.state.selectedT), null);
    // From the tree: the node, then its subtree figure.
    const tree = suite.recording.processes.find((p) => p.cmdline[1] === 'tree' && p.parent != null);
    await page.click(`[data-testid="tree-node"][data-id="${tree.id}"] .name`);
    highlighted = await page.evaluate(() => window.canopyView.state.highlighted);
    assert.deepEqual(highlighted.ids, [tree.id]);
    await page.click(`[data-testid="tree-node"][data-id="${tree.id}"] [data-testid="tree-subtree"]`);
    highlighted = await page.evaluate(() => window.canopyView.state.highlighted);
    assert.equal(highlighted.kind, 'subtree');
    for (const c of holdChildren(suite.recording.processes).values()) assert.ok(highlighted.ids.includes(c.id));
    assert.ok(highlighted.ids.includes(tree.id));
    assert.deepEqual(errors, []);
  });

  test('the process tree lists every process, with subtree figures', async () => {
    const { page, errors } = await open();
    await page.click('[data-testid="tree-expand-all"]');
    const rows = Number(await page.locator('[data-testid="tree-panel"]').getAttribute('data-rows'));
    assert.equal(rows, suite.recording.processes.length);
    const root = suite.recording.processes.find((p) => p.parent == null && !p.adopted);
    const rootRow = page.locator(`[data-testid="tree-node"][data-id="${root.id}"]`);
    const text = await rootRow.textContent();
    assert.ok(text.includes(String(root.pid)), text);
    assert.ok(text.includes(`${(root.subtree_peak_rss_bytes / MiB).toFixed(1)} MiB`), text);
    for (const p of suite.recording.processes.filter((x) => x.adopted)) {
      assert.ok((await page.locator(`[data-testid="tree-node"][data-id="${p.id}"]`).textContent()).includes('adopted'));
    }
    await screenshot(page, suite.env, 'view-tree');
    assert.deepEqual(errors, []);
  });

  test('a drag zooms into the second around the peak; a double-click shows the whole run again', async () => {
    const { page, errors } = await open();
    const start = suite.recording.meta.start_ms;
    const box = await page.locator('.u-over').boundingBox();
    const xOf = (t) => page.evaluate((x) => window.canopyView.chart.valToPos((x - window.canopyView.startMs) / 1000, 'x'), t);
    // 0.9 s around the tree's peak, wherever the machine's speed put it.
    const endS = (suite.recording.meta.end_ms - start) / 1000;
    const fromS = Math.max(0, Math.min((peakT - start) / 1000 - 0.45, endS - 0.9));
    const toS = Math.min(endS, fromS + 0.9);
    const [left, right] = [await xOf(start + fromS * 1000), await xOf(start + toS * 1000)];
    // The mouse lands on a whole pixel and the chart reads it in whole pixels: each end
    // of the drag is true to within those two roundings.
    const pixelS = (toS - fromS) / (right - left);
    await page.mouse.move(box.x + left, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x + (left + right) / 2, box.y + box.height / 2, { steps: 3 });
    await page.mouse.move(box.x + right, box.y + box.height / 2, { steps: 3 });
    await page.mouse.up();
    const zoomed = await chartData(page);
    assert.ok(Math.abs(zoomed.xMin - fromS) <= 2 * pixelS && Math.abs(zoomed.xMax - toS) <= 2 * pixelS,
      `x ${zoomed.xMin}..${zoomed.xMax}, dragged ${fromS}..${toS}, one pixel ${pixelS} s`);
    // The peak is inside the window, so the y axis still tops at it.
    assert.ok(within(zoomed.yMax, suite.rec.summary.peak_tree_rss_bytes, 0.005));
    await page.waitForFunction(() => window.canopyView.state.fetches >= 2);
    await screenshot(page, suite.env, 'view-zoomed-tree');
    await page.mouse.dblclick(box.x + box.width / 2, box.y + box.height / 2);
    const reset = await chartData(page);
    assert.equal(reset.xMin, 0);
    assert.ok(within(reset.xMax * 1000, suite.recording.meta.end_ms - start, 0.001));
    // The double-click's own clicks leave no pin behind.
    assert.equal(await page.evaluate(() => window.canopyView.state.selectedT), null);
    assert.deepEqual(errors, []);
  });

  test('clicking an event line pins its time', async () => {
    const { page, errors } = await open();
    const exec = events.find((e) => e.kind === 'exec' && e.text.includes('hold 30 1500'));
    assert.ok(exec, `no exec event in ${JSON.stringify(events)}`);
    await page.click(`[data-testid="event-row"][data-kind="exec"][data-t="${exec.t}"]`);
    assert.equal(await page.evaluate(() => window.canopyView.state.selectedT), exec.t);
    await page.waitForFunction(() => document.querySelector('[data-testid="info-panel"]').dataset.how === 'pinned');
    assert.equal(await page.locator('[data-testid="pinned-time"]').getAttribute('data-t'), String(exec.t));
    assert.deepEqual(errors, []);
  });

  test('a pinned time scrolls the events pane to the nearest line and marks it', async () => {
    const { page, errors } = await open({ width: 1600, height: 700 });
    for (const kind of ['start', 'end']) await page.click(`[data-testid="event-kind"][data-kind="${kind}"]`);
    // Every line the pane now lists: the server's list (GET /api/events, every kind),
    // whose starts and ends are those of the process table.
    const meta = suite.recording.meta;
    const derived = [
      ...suite.recording.processes.map((p) => p.start_ms),
      ...suite.recording.processes.map((p) => p.end_ms ?? (p.last_ms < meta.end_ms ? p.last_ms : null)).filter((t) => t != null),
    ];
    const listed = events.filter((e) => ['start', 'end', 'exit'].includes(e.kind)).map((e) => e.t);
    const byNumber = (a, b) => a - b;
    assert.deepEqual(listed.sort(byNumber), derived.sort(byNumber));
    const times = events.map((e) => e.t);
    assert.equal(Number(await page.locator('[data-testid="events-panel"]').getAttribute('data-lines')), times.length);
    const list = page.locator('[data-testid="event-rows"]');
    // Each pin starts with the pane at the other end of the list. The line nearest the
    // end is out of view from the top, so the pane must scroll to it; the one nearest
    // the start may already show from the bottom (how many lines the first tick gathers
    // depends on when the tree's processes started), and then the pane stays.
    for (const [t, from] of [[meta.end_ms - 50, 'top'], [meta.start_ms + 20, 'bottom']]) {
      const before = await list.evaluate((el, [end, lines]) => {
        el.scrollTop = end === 'top' ? 0 : el.scrollHeight;
        return { scrollTop: el.scrollTop, height: el.clientHeight, rowHeight: el.scrollHeight / lines };
      }, [from, times.length]);
      await clickChartAt(page, t);
      const pinned = await page.evaluate(() => window.canopyView.state.selectedT);
      const nearest = times.reduce((best, x) => (Math.abs(x - pinned) < Math.abs(best - pinned) ? x : best));
      const index = times.indexOf(nearest);
      // The server finds the line: until it answers, the line the hover marked stays.
      await page.waitForFunction((line) => window.canopyView.events.markedLine === line, index);
      const marked = page.locator('[data-testid="event-row"].marked');
      await marked.waitFor();
      assert.equal(Number(await marked.getAttribute('data-t')), nearest);
      const [row, box] = [await marked.boundingBox(), await list.boundingBox()];
      assert.ok(row.y >= box.y - 1 && row.y + row.height <= box.y + box.height + 1, 'the marked line is in view');
      const shownBefore = index * before.rowHeight >= before.scrollTop - 1 &&
        (index + 1) * before.rowHeight <= before.scrollTop + before.height + 1;
      if (from === 'top') assert.ok(!shownBefore, `line ${index} of ${times.length} already showed: the list is too short for this test`);
      const after = await list.evaluate((el) => el.scrollTop);
      if (!shownBefore) assert.notEqual(after, before.scrollTop, `line ${index}: the pane did not scroll`);
      await page.keyboard.press('Escape');
    }
    assert.deepEqual(errors, []);
  });
});
