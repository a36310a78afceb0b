// A recording of 500-odd processes (a real workload: waves of short holders beside two
// large ones): the chart stacks the top N bands by area in view and one "other" band
// that is, at every drawn tick, the sum of all the rest; the legend hides and isolates
// bands; N and the grouping are kept in the URL, and the grouping is decided by how
// many processes run at once, not by how many the recording has. Highlighting one
// short wave's subtree from the tree zooms to its lifetime.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { screenshot, treeViewSuite, waitReady, watchErrors } from './harness.mjs';

// Two holders of 60 and 40 MiB for 2 s, beside 20 waves of 26 holders of 1 MiB for
// 0.3 s each (520 processes, about 30 alive at once). Whatever the machine's speed, the
// waves (at least 20 x 0.3 s) outlast the large holders by more than a second, so the
// last second of the recording is theirs alone; and the large holders have by far the
// largest areas (60 MiB x 2 s against a few MiB x 0.3 s of a small one).
const kWaves = 20;
const kPerWave = 26;
const kCommand = [
  'sh',
  '-c',
  `"$W" hold 60 2000 big & "$W" hold 40 2000 big &
   w=0; while [ $w -lt ${kWaves} ]; do
     sh -c 'j=0; while [ $j -lt ${kPerWave} ]; do "$W" hold 1 300 small & j=$((j+1)); done; wait'
     w=$((w+1))
   done; wait`,
];

describe('canopy view: 500 processes', () => {
  const suite = treeViewSuite('canopy-top-', { name: 'waves', command: kCommand });

  async function open(hash) {
    const page = await (await suite.browser.newContext({ viewport: { width: 1600, height: 1000 } })).newPage();
    const errors = watchErrors(page);
    await page.goto(`${suite.server.url}${hash}`);
    await waitReady(page);
    return { page, errors };
  }

  // Every drawn tick: "other" against the sum of the series of every band outside the
  // top, and the top bands plus "other" against all the series.
  function checkOther(page) {
    return page.evaluate(() => {
      const view = window.canopyView;
      const frame = view.frame;
      const series = view.series.series;
      const other = frame.legend.find((l) => l.key === 'other');
      const topIds = new Set(frame.legend.filter((l) => l.key !== 'other').flatMap((l) => l.ids));
      const mismatches = [];
      let overlap = 0;
      for (const id of other.ids) if (topIds.has(id)) overlap++;
      for (let i = 0; i < frame.t.length; i++) {
        let rest = 0;
        for (const s of series) {
          if (topIds.has(s.id) || i < s.offset || i >= s.offset + s.values.length) continue;
          rest += s.values[i - s.offset] || 0;
        }
        const j = i - other.offset;
        const drawn = j >= 0 && j < other.values.length ? other.values[j] : 0;
        if (drawn !== rest) mismatches.push({ i, drawn, rest });
      }
      return { ticks: frame.t.length, mismatches, overlap, otherCount: other.count, seriesCount: series.length, top: topIds.size };
    });
  }

  test('the top 12 and other, per process, with the large holders first', async () => {
    assert.ok(suite.recording.processes.length >= 500, `${suite.recording.processes.length} processes`);
    const { page, errors } = await open('#group=process');
    const legend = await page.evaluate(() => window.canopyView.legend);
    assert.equal(legend.length, 13);
    assert.equal(legend[12].key, 'other');
    const byId = new Map(suite.recording.processes.map((p) => [p.id, p]));
    const mibOf = (entry) => Number(byId.get(entry.ids[0]).cmdline[2]);
    assert.deepEqual([mibOf(legend[0]), mibOf(legend[1])], [60, 40]);
    for (let k = 1; k < 12; k++) assert.ok(legend[k - 1].area >= legend[k].area, `legend in size order at ${k}`);
    assert.equal(await page.locator('[data-testid="legend-entry"]').count(), 13);
    assert.equal(await page.evaluate(() => document.querySelector('[data-testid="chart"]').dataset.layers), '13');

    const check = await checkOther(page);
    assert.ok(check.ticks > 10, `${check.ticks} ticks`);
    assert.deepEqual(check.mismatches, []);
    assert.equal(check.overlap, 0);
    assert.equal(check.otherCount + 12, check.seriesCount);
    await screenshot(page, suite.env, 'top-bands-500');
    assert.deepEqual(errors, []);
  });

  test('the legend hides a band and shows one alone', async () => {
    const { page, errors } = await open('#group=process');
    const first = page.locator('[data-testid="legend-entry"]').first();
    const firstKey = await first.getAttribute('data-key');
    await first.click();
    await page.waitForFunction((key) => !window.canopyView.layers.some((l) => l.key === key), firstKey);
    assert.equal(await page.evaluate(() => window.canopyView.layers.length), 12);
    assert.equal(await page.evaluate(() => window.canopyView.legend.length), 13); // still listed
    assert.equal(await first.getAttribute('aria-pressed'), 'false');
    await screenshot(page, suite.env, 'top-bands-hidden');
    await first.click();
    await page.waitForFunction(() => window.canopyView.layers.length === 13);

    const otherEntry = page.locator('[data-testid="legend-entry"][data-key="other"]');
    await otherEntry.click({ modifiers: ['Shift'] });
    await page.waitForFunction(() => window.canopyView.layers.length === 1);
    assert.equal(await page.evaluate(() => window.canopyView.layers[0].key), 'other');
    await screenshot(page, suite.env, 'top-bands-other-alone');
    await otherEntry.click({ modifiers: ['Shift'] });
    await page.waitForFunction(() => window.canopyView.layers.length === 13);
    assert.deepEqual(errors, []);
  });

  test('N is kept in the URL, and a zoom ranks the bands in view', async () => {
    const { page, errors } = await open('#group=process');
    await page.selectOption('[data-testid="top-select"]', '5');
    await page.waitForFunction(() => window.canopyView.legend.length === 6);
    assert.match(await page.evaluate(() => location.hash), /top=5/);
    await page.reload();
    await waitReady(page);
    assert.equal(await page.inputValue('[data-testid="top-select"]'), '5');
    assert.equal(await page.evaluate(() => window.canopyView.legend.length), 6);
    assert.equal(await page.evaluate(() => window.canopyView.state.grouped), false);

    // Zoomed to the last second, after the large holders ended: they leave the top.
    const byId = new Map(suite.recording.processes.map((p) => [p.id, p]));
    const bigIds = suite.recording.processes.filter((p) => p.cmdline[3] === 'big').map((p) => p.id);
    const bigEnd = Math.max(...bigIds.map((id) => byId.get(id).last_ms));
    const end = await page.evaluate(() => window.canopyView.endMs);
    assert.ok(end - bigEnd > 1000, `the waves outlast the holders (${end - bigEnd} ms)`);
    const fetches = await page.evaluate(() => window.canopyView.state.fetches);
    await page.evaluate(({ from, to }) => window.canopyView.chart.setScale('x', { min: (from - window.canopyView.startMs) / 1000, max: (to - window.canopyView.startMs) / 1000 }), { from: end - 1000, to: end });
    await page.waitForFunction((n) => window.canopyView.state.fetches > n, fetches);
    const keys = await page.evaluate(() => window.canopyView.legend.map((l) => l.key));
    for (const id of bigIds) assert.ok(!keys.slice(0, 5).includes(`p:${id}`), `holder ${id} not in the top after it ended`);
    const check = await checkOther(page);
    assert.deepEqual(check.mismatches, []);
    await screenshot(page, suite.env, 'top-bands-zoomed');
    assert.deepEqual(errors, []);
  });

  test('500 processes but 30 at once: bands per process; the choice is kept in the URL', async () => {
    const { page, errors } = await open('');
    assert.equal(await page.evaluate(() => window.canopyView.state.grouped), false);
    assert.equal(await page.isChecked('[data-testid="group-toggle"]'), false);
    await page.click('[data-testid="group-toggle"]');
    await page.waitForFunction(() => /group=name/.test(location.hash) && window.canopyView.layers.every((l) => l.key.startsWith('g:')));
    await page.reload();
    await waitReady(page);
    assert.equal(await page.evaluate(() => window.canopyView.state.grouped), true);
    const labels = await page.evaluate(() => window.canopyView.layers.map((l) => l.label));
    const count = suite.recording.processes.filter((p) => p.name === 'canopy_workload').length;
    assert.ok(count >= 520, `${count} canopy_workload processes`);
    assert.ok(labels.includes(`canopy_workload ×${count}`), labels.join(', '));
    await screenshot(page, suite.env, 'top-bands-grouped');
    assert.deepEqual(errors, []);
  });

  test('highlighting a short-lived subtree from the tree zooms to its lifetime', async () => {
    const { page, errors } = await open('#group=process');
    const full = await page.evaluate(() => ({ ...window.canopyView.state.view }));
    // The middle wave's shell and its holders.
    const byId = new Map(suite.recording.processes.map((p) => [p.id, p]));
    const waves = suite.recording.processes.filter((p) => p.name === 'sh' && p.cmdline[1] === '-c' && p.cmdline[2].startsWith('j=0'));
    assert.equal(waves.length, kWaves);
    const wave = waves[Math.floor(kWaves / 2)];
    const members = [wave, ...suite.recording.processes.filter((p) => p.parent === wave.id)];
    assert.equal(members.length, kPerWave + 1);
    const life = { from: Math.min(...members.map((p) => p.first_ms)), to: Math.max(...members.map((p) => p.last_ms)) };
    // The wave is under a tenth of the run (one of 20 waves): a sliver before the zoom.
    assert.ok(life.to - life.from < (full.to - full.from) / 10, `the wave lives ${life.to - life.from} ms of ${full.to - full.from}`);

    const fetches = await page.evaluate(() => window.canopyView.state.fetches);
    await page.evaluate((id) => window.canopyView.revealTreeNode(id), wave.id);
    await page.locator(`[data-testid="tree-node"][data-id="${wave.id}"] [data-testid="tree-subtree"]`).click();
    await page.waitForFunction((n) => window.canopyView.state.fetches > n, fetches);
    const after = await page.evaluate(() => ({
      highlighted: window.canopyView.state.highlighted,
      view: window.canopyView.state.view,
      layers: window.canopyView.layers,
    }));
    assert.equal(after.highlighted.kind, 'subtree');
    assert.deepEqual([...after.highlighted.ids].sort((a, b) => a - b), members.map((p) => p.id).sort((a, b) => a - b));
    assert.ok(after.view.from <= life.from && after.view.to >= life.to, `${JSON.stringify(after.view)} holds ${JSON.stringify(life)}`);
    assert.ok(after.view.to - after.view.from < (full.to - full.from) / 4, 'zoomed in');
    // Its bands are on the chart (their own, or inside "other"), lit.
    const ids = new Set(after.highlighted.ids);
    assert.ok(after.layers.some((l) => l.ids.some((id) => ids.has(id))), 'a band of the subtree is drawn');
    await screenshot(page, suite.env, 'subtree-zoomed');

    // The root's subtree spans the run: highlighting it leaves the view alone.
    await page.keyboard.press('Escape');
    await page.click('[data-testid="reset-zoom"]');
    const root = suite.recording.processes.find((p) => p.parent == null && byId.has(p.id));
    await page.evaluate((id) => window.canopyView.revealTreeNode(id), root.id);
    await page.locator(`[data-testid="tree-node"][data-id="${root.id}"] [data-testid="tree-subtree"]`).click();
    await page.waitForFunction(() => window.canopyView.state.highlighted && window.canopyView.state.highlighted.kind === 'subtree');
    assert.deepEqual(await page.evaluate(() => window.canopyView.state.view), full);
    assert.deepEqual(errors, []);
  });

  // The metric switch used to redraw every process's band (the page froze for seconds on
  // 200 processes): the work of a draw is now bounded by the bands in the top N, counted
  // in path vertices, whatever the number of processes.
  test('switching to CPU draws the top bands only: work bounded by N, not by processes', async () => {
    const { page, errors } = await open('#group=process&top=12');
    await page.selectOption('[data-testid="metric-select"]', 'cpu');
    await page.waitForFunction(() => document.querySelector('[data-testid="chart"]').dataset.metric === 'cpu');
    const drawn = await page.evaluate(() => ({
      ...document.querySelector('[data-testid="chart"]').dataset,
      series: window.canopyView.series.series.length,
    }));
    assert.ok(drawn.series > 100, `${drawn.series} processes in the CPU series`);
    assert.ok(Number(drawn.layers) <= 13, `${drawn.layers} bands`);
    // Each band: its top, its bottom and its edge, two vertices per point plus one.
    const bound = 13 * 3 * (2 * Number(drawn.drawnPoints) + 1);
    assert.ok(Number(drawn.drawnVertices) > 0 && Number(drawn.drawnVertices) <= bound, `${drawn.drawnVertices} vertices, bound ${bound}`);
    await screenshot(page, suite.env, 'many-cpu');
    assert.deepEqual(errors, []);
  });
});
