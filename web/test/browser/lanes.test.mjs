// Lanes: the tree panel shows each process's life over the chart's visible range,
// coloured by the chart's metric. The test tree's three children hold 50, 100 and 150
// MiB at once: their lanes darken in that order, each bar spans the process's life, and
// clicking a lane highlights the process and zooms the chart to its life.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { MiB, screenshot, treeViewSuite, waitReady, watchErrors } from './harness.mjs';

describe('canopy view: lanes', () => {
  const suite = treeViewSuite('canopy-lanes-');

  // Per lane drawn: the process id, its canvas width, the life bar's pixels, and the
  // lightness (0-255 mean of r, g, b) of the bar's middle.
  function lanes(page) {
    return page.evaluate(() =>
      [...document.querySelectorAll('[data-testid="tree-node"]')].map((row) => {
        const canvas = row.querySelector('[data-testid="tree-lane"]');
        const [x0, x1] = (canvas.dataset.life || '').split(',').map(Number);
        let light = null;
        if (canvas.dataset.life) {
          const ratio = canvas.width / canvas.clientWidth;
          const px = canvas.getContext('2d').getImageData(Math.round(((x0 + x1) / 2) * ratio), Math.round(canvas.height / 2), 1, 1).data;
          light = (px[0] + px[1] + px[2]) / 3;
        }
        return { id: Number(row.dataset.id), width: canvas.clientWidth, x0, x1, light, shown: canvas.offsetParent !== null };
      }),
    );
  }

  test('lanes span each life and darken with memory; a click zooms to the life', async () => {
    const page = await (await suite.browser.newContext({ viewport: { width: 1600, height: 1000 } })).newPage();
    const errors = watchErrors(page);
    await page.goto(suite.server.url);
    await waitReady(page);
    await page.click('[data-testid="tree-expand-all"]');
    assert.ok((await lanes(page)).every((lane) => !lane.shown), 'no lanes before the switch');
    await page.check('[data-testid="tree-lanes"]');
    const drawn = await lanes(page);
    assert.equal(drawn.length, suite.recording.processes.length);
    assert.ok(drawn.every((lane) => lane.shown && lane.width > 200), 'every row has its lane');
    assert.equal(await page.locator('.tree-panel .c-fig').first().isVisible(), false, 'the figures give way');

    // Each bar spans the life, as the view maps it.
    const { start_ms: from, end_ms: to } = suite.recording.meta;
    const byId = new Map(suite.recording.processes.map((p) => [p.id, p]));
    for (const lane of drawn) {
      const p = byId.get(lane.id);
      const lifeTo = p.end_ms ?? p.last_ms ?? to;
      const x0 = ((p.first_ms - from) / (to - from)) * lane.width;
      const x1 = ((lifeTo - from) / (to - from)) * lane.width;
      assert.ok(Math.abs(lane.x0 - x0) <= 1, `process ${lane.id}: starts at ${lane.x0}, life at ${x0}`);
      assert.ok(Math.abs(lane.x1 - Math.max(x1, x0 + 2)) <= 1, `process ${lane.id}: ends at ${lane.x1}, life at ${x1}`);
    }

    // The children holding 50, 100 and 150 MiB: darker in that order.
    const holders = [50, 100, 150].map((mib) =>
      suite.recording.processes.find((p) => p.peak_rss_bytes >= mib * MiB && p.peak_rss_bytes < (mib + 10) * MiB),
    );
    assert.ok(holders.every(Boolean), 'the three children are in the recording');
    const light = holders.map((p) => drawn.find((lane) => lane.id === p.id).light);
    assert.ok(light[0] > light[1] && light[1] > light[2], `lightness 50/100/150 MiB: ${light}`);
    await screenshot(page, suite.env, 'lanes');

    // A click on the 150 MiB child's lane: highlighted, and the chart zoomed to its life.
    const big = holders[2];
    const row = page.locator(`[data-testid="tree-node"][data-id="${big.id}"] [data-testid="tree-lane"]`);
    await row.click();
    await page.waitForFunction((id) => window.canopyView.state.highlighted && window.canopyView.state.highlighted.rootId === id, big.id);
    const view = await page.evaluate(() => ({ ...window.canopyView.state.view }));
    const lifeTo = big.end_ms ?? big.last_ms;
    assert.ok(view.from <= big.first_ms && view.to >= lifeTo, `view ${view.from}-${view.to} holds the life ${big.first_ms}-${lifeTo}`);
    assert.ok(view.to - view.from <= (lifeTo - big.first_ms) * 1.1 + 2 * suite.recording.meta.interval_ms + 1, 'zoomed to about the life');
    // The lanes follow the zoom: the life now fills most of its lane.
    const zoomed = (await lanes(page)).find((lane) => lane.id === big.id);
    assert.ok(zoomed.x1 - zoomed.x0 > 0.8 * zoomed.width, `the life spans ${zoomed.x1 - zoomed.x0} of ${zoomed.width} px`);
    await screenshot(page, suite.env, 'lanes-zoomed');
    assert.deepEqual(errors, []);
  });
});
