// The panes are resizable: dragging a splitter moves the boundary by as much as the
// pointer moved, the chart redraws at its new size, the layout survives a reload
// (localStorage), the arrow keys move a focused splitter without panning the chart, and
// a double-click puts the default back.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { screenshot, treeViewSuite, waitReady, watchErrors } from './harness.mjs';

describe('canopy view: resizable panes', () => {
  const suite = treeViewSuite('canopy-panes-');

  function boxes(page) {
    return page.evaluate(() => {
      const box = (selector) => {
        const r = document.querySelector(selector).getBoundingClientRect();
        return { x: r.x, y: r.y, width: r.width, height: r.height };
      };
      return {
        chart: box('.chart-panel'),
        info: box('.info-panel'),
        tree: box('.tree-panel'),
        column: box('[data-testid="splitter-column"]'),
        row: box('[data-testid="splitter-row"]'),
        plotWidth: window.canopyView.chart.width,
        stored: localStorage.getItem('canopy.layout'),
      };
    });
  }

  async function drag(page, splitter, dx, dy) {
    const cx = splitter.x + splitter.width / 2;
    const cy = splitter.y + splitter.height / 2;
    await page.mouse.move(cx, cy);
    await page.mouse.down();
    await page.mouse.move(cx + dx, cy + dy, { steps: 8 });
    await page.mouse.up();
  }

  test('splitters resize the panels, persist, move by key and reset', async () => {
    const context = await suite.browser.newContext({ viewport: { width: 1600, height: 1000 } });
    const page = await context.newPage();
    const errors = watchErrors(page);
    await page.goto(suite.server.url);
    await waitReady(page);
    const initial = await boxes(page);
    assert.equal(initial.stored, null);
    // Each splitter sits in the gap between the panels it divides.
    const columnCenter = initial.column.x + initial.column.width / 2;
    assert.ok(columnCenter > initial.chart.x + initial.chart.width && columnCenter < initial.info.x, 'column splitter in the gap');
    const rowCenter = initial.row.y + initial.row.height / 2;
    assert.ok(rowCenter > initial.chart.y + initial.chart.height && rowCenter < initial.tree.y, 'row splitter in the gap');

    await drag(page, initial.column, 200, 0);
    await drag(page, initial.row, 0, -100);
    await page.waitForFunction((before) => window.canopyView.chart.width > before + 150, initial.plotWidth);
    const dragged = await boxes(page);
    assert.ok(Math.abs(dragged.chart.width - initial.chart.width - 200) <= 1, `chart ${initial.chart.width} -> ${dragged.chart.width}`);
    assert.ok(Math.abs(initial.info.width - dragged.info.width - 200) <= 1, `info ${initial.info.width} -> ${dragged.info.width}`);
    assert.ok(Math.abs(initial.chart.height - dragged.chart.height - 100) <= 1, `chart height ${initial.chart.height} -> ${dragged.chart.height}`);
    assert.ok(Math.abs(dragged.tree.height - initial.tree.height - 100) <= 1, `tree ${initial.tree.height} -> ${dragged.tree.height}`);
    assert.ok(dragged.plotWidth > initial.plotWidth + 150, `the chart redrew wider: ${initial.plotWidth} -> ${dragged.plotWidth}`);
    assert.ok(dragged.stored, 'the layout is stored');
    await screenshot(page, suite.env, 'panes-dragged');

    // A page opened later opens with the same layout.
    const later = await context.newPage();
    await later.goto(suite.server.url);
    await waitReady(later);
    const reopened = await boxes(later);
    assert.ok(Math.abs(reopened.chart.width - dragged.chart.width) <= 1, `reopened ${reopened.chart.width} vs ${dragged.chart.width}`);
    assert.ok(Math.abs(reopened.tree.height - dragged.tree.height) <= 1);
    await later.close();

    // A focused splitter moves by 2% of the layout per key, and the chart does not pan.
    const viewBefore = await page.evaluate(() => ({ ...window.canopyView.state.view }));
    await page.focus('[data-testid="splitter-column"]');
    await page.keyboard.press('ArrowLeft');
    const keyed = await boxes(page);
    const span = dragged.chart.width + dragged.info.width;
    const expected = dragged.chart.width - 0.02 * span;
    assert.ok(Math.abs(keyed.chart.width - expected) <= 1.5, `after ArrowLeft: ${keyed.chart.width}, expected ${expected}`);
    assert.deepEqual(await page.evaluate(() => ({ ...window.canopyView.state.view })), viewBefore);

    // A double-click puts each splitter's default back.
    await page.dblclick('[data-testid="splitter-column"]');
    await page.dblclick('[data-testid="splitter-row"]');
    const reset = await boxes(page);
    assert.ok(Math.abs(reset.chart.width - initial.chart.width) <= 1, `reset ${reset.chart.width} vs ${initial.chart.width}`);
    assert.ok(Math.abs(reset.chart.height - initial.chart.height) <= 1);
    assert.equal(reset.stored, null, 'the default layout is not stored');
    assert.deepEqual(errors, []);
    await context.close();
  });
});
