// The chart's frame stays put: a long highlight label does not wrap the toolbar (which
// would move the chart under the cursor), the time label on the plot's right edge is
// drawn whole, and zoomed in the y axis reaches the step that enters the window from
// the left.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { screenshot, treeViewSuite, waitReady, watchErrors } from './harness.mjs';

describe('canopy view: layout', () => {
  const suite = treeViewSuite('canopy-layout-');

  async function open(viewport) {
    const page = await (await suite.browser.newContext({ viewport })).newPage();
    const errors = watchErrors(page);
    await page.goto(suite.server.url);
    await waitReady(page);
    return { page, errors };
  }

  test('highlighting a subtree moves neither the toolbar nor the chart', async () => {
    for (const width of [1600, 1280, 1150]) {
      const { page, errors } = await open({ width, height: 900 });
      const toolbar = page.locator('.toolbar');
      const chart = page.locator('[data-testid="chart"]');
      const [barBefore, chartBefore] = [await toolbar.boundingBox(), await chart.boundingBox()];
      const root = suite.recording.processes.find((p) => p.parent == null && !p.adopted);
      await page.click(`[data-testid="tree-node"][data-id="${root.id}"] [data-testid="tree-subtree"]`);
      await page.locator('[data-testid="highlight-label"]:not([hidden])').waitFor();
      // Zoomed in too, so that the view range is at its longest.
      await page.evaluate(() => window.canopyView.chart.setScale('x', { min: 0.25, max: 1.25 }));
      await page.locator('[data-testid="reset-zoom"]:not([disabled])').waitFor();
      const [barAfter, chartAfter] = [await toolbar.boundingBox(), await chart.boundingBox()];
      assert.equal(barAfter.height, barBefore.height, `${width} px: the toolbar grew from ${barBefore.height} to ${barAfter.height} px`);
      assert.equal(chartAfter.y, chartBefore.y, `${width} px: the chart moved`);
      assert.equal(chartAfter.height, chartBefore.height, `${width} px: the chart's height changed`);
      // Every control still shows whole, inside its panel.
      const panel = await page.locator('.chart-panel').boundingBox();
      for (const id of ['metric-select', 'group-toggle', 'reset-zoom', 'clear-highlight']) {
        const box = await page.locator(`[data-testid="${id}"]`).boundingBox();
        assert.ok(box && box.x >= panel.x && box.x + box.width <= panel.x + panel.width + 0.5, `${width} px: ${id} is cut off`);
      }
      if (width === 1150) await screenshot(page, suite.env, 'view-toolbar-highlight');
      assert.deepEqual(errors, []);
      await page.context().close();
    }
  });

  test('the time label on the right edge of the plot is drawn whole', async () => {
    const { page, errors } = await open({ width: 1600, height: 1000 });
    const endS = (suite.recording.meta.end_ms - suite.recording.meta.start_ms) / 1000;
    // Windows that end on a round time, where the axis puts its last label.
    for (const toS of [1, 2, Math.floor(endS * 10) / 10].filter((s) => s > 0.2 && s <= endS)) {
      await page.evaluate((to) => window.canopyView.chart.setScale('x', { min: 0, max: to }), toS);
      await page.waitForFunction((to) => Math.abs(window.canopyView.chart.scales.x.max - to) < 1e-6, toS);
      const edge = await page.evaluate(() => {
        const u = window.canopyView.chart;
        const axis = u.axes[0];
        const labels = axis._values;
        const splits = axis._splits;
        const ctx = document.createElement('canvas').getContext('2d');
        ctx.font = '11px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
        const last = labels.length - 1;
        const centre = u.valToPos(splits[last], 'x') + u.over.offsetLeft;
        return { label: labels[last], right: centre + ctx.measureText(labels[last]).width / 2, width: u.root.querySelector('canvas').clientWidth };
      });
      assert.ok(edge.right <= edge.width, `label '${edge.label}' ends at ${edge.right.toFixed(1)} px of ${edge.width}`);
    }
    await screenshot(page, suite.env, 'view-axis-edge');
    assert.deepEqual(errors, []);
  });

  test('zoomed in, the y axis reaches the step entering from the left', async () => {
    const { page, errors } = await open({ width: 1600, height: 1000 });
    // From 10 ms after the tick before the steepest fall (the children exiting) to 10 ms
    // after the next tick: the higher step enters the window from the left, and the one
    // tick inside is lower.
    const series = await (await fetch(`${suite.server.url}api/series?metric=rss&points=20000`)).json();
    const { t, total } = series;
    let i = 0;
    for (let j = 1; j + 2 < t.length; j++) if (total[j] - total[j + 1] > total[i] - total[i + 1]) i = j;
    assert.ok(total[i] - total[i + 1] >= 50 * 1048576, `the steepest fall is ${total[i] - total[i + 1]} bytes`);
    assert.ok(t[i + 2] - t[i + 1] > 10, 'the next ticks are too close');
    const startMs = suite.recording.meta.start_ms;
    const [from, to] = [t[i] + 10, t[i + 1] + 10];
    await page.evaluate(([a, b]) => window.canopyView.chart.setScale('x', { min: a, max: b }), [(from - startMs) / 1000, (to - startMs) / 1000]);
    await page.waitForFunction((n) => window.canopyView.state.fetches >= n, 2);
    await page.waitForFunction((high) => window.canopyView.chart.scales.y.max === high, total[i]);
    await screenshot(page, suite.env, 'view-zoom-between-ticks');
    assert.deepEqual(errors, []);
  });
});
