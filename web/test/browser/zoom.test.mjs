// Zoom and pan in `canopy view`: a drag zooms in and the page refetches the visible range
// at about one point per pixel, so a recording with more ticks than the plot has pixels
// shows every tick once zoomed in. The recording samples every 5 ms for 12 s (about 2400
// ticks, and still over a thousand where a loaded machine takes half of them) and the
// page is narrow (a plot of about 650 px), so the first view is downsampled; the drag
// takes a span of at most half as many ticks as the plot has pixels, which is not.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { screenshot, treeViewSuite, waitReady, watchErrors } from './harness.mjs';

// Points of a /api/series answer inside its own [from, to], per second.
function density(series) {
  const inside = series.t.filter((t) => t >= series.from && t <= series.to).length;
  return (inside / (series.to - series.from)) * 1000;
}

describe('canopy view: zoom and pan', () => {
  const suite = treeViewSuite('canopy-zoom-', {
    name: 'hold', recordArgs: ['-i', '5'], command: (env) => [env.workload, 'hold', '40', '12000'],
  });

  test('a drag zooms in and refetches the range at full resolution; keys, wheel and Reset move it', async () => {
    const page = await (await suite.browser.newContext({ viewport: { width: 760, height: 800 } })).newPage();
    const errors = watchErrors(page);
    const firstAnswer = page.waitForResponse((r) => r.url().includes('api/series'));
    await page.goto(suite.server.url);
    await waitReady(page);
    const first = await (await firstAnswer).json();
    const full = await page.evaluate(() => ({ ...window.canopyView.state.view }));
    const box = await page.locator('.u-over').boundingBox();
    assert.ok(suite.rec.summary.ticks > 1.5 * box.width, `only ${suite.rec.summary.ticks} ticks recorded for ${box.width} px`);
    assert.equal(first.exact, false, 'the whole run has more ticks than the plot has pixels');

    // Drag from 30% of the plot over a quarter of it, or fewer ticks than half its pixels.
    const fraction = Math.min(0.25, (0.5 * box.width) / suite.rec.summary.ticks);
    const y = box.y + box.height / 2;
    await page.mouse.move(box.x + box.width * 0.3, y);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width * (0.3 + fraction / 2), y, { steps: 4 });
    await page.mouse.move(box.x + box.width * (0.3 + fraction), y, { steps: 4 });
    const refetched = page.waitForResponse((r) => r.url().includes('api/series') && !r.url().includes(`from=${full.from}&`));
    await page.mouse.up();
    const zoomed = await (await refetched).json();
    const view = await page.evaluate(() => ({ ...window.canopyView.state.view }));
    const span = full.to - full.from;
    const pixelMs = span / box.width;
    assert.ok(Math.abs(view.from - (full.from + span * 0.3)) < 2 * pixelMs, `view from ${view.from}`);
    assert.ok(Math.abs(view.to - (full.from + span * (0.3 + fraction))) < 2 * pixelMs, `view to ${view.to}`);
    assert.equal(zoomed.from, Math.floor(view.from));
    assert.equal(zoomed.to, Math.ceil(view.to));
    assert.equal(zoomed.exact, true, 'the span fits the plot: every tick');
    assert.ok(density(zoomed) > 1.2 * density(first), `points per second: ${density(first)} then ${density(zoomed)}`);
    await page.waitForFunction((n) => document.querySelector('[data-testid="chart"]').dataset.drawnPoints === String(n), zoomed.t.length);
    const scale = await page.evaluate(() => ({ min: window.canopyView.chart.scales.x.min, max: window.canopyView.chart.scales.x.max }));
    assert.ok(Math.abs(scale.min * 1000 - (view.from - full.from)) < 1);
    assert.ok(Math.abs(scale.max * 1000 - (view.to - full.from)) < 1);
    await screenshot(page, suite.env, 'view-zoomed');

    // → pans by a tenth of the span, keeping the span.
    await page.focus('.u-over');
    await page.keyboard.press('ArrowRight');
    const panned = await page.evaluate(() => ({ ...window.canopyView.state.view }));
    assert.ok(Math.abs(panned.from - view.from - (view.to - view.from) * 0.1) < 1);
    assert.ok(Math.abs(panned.to - panned.from - (view.to - view.from)) < 1);

    // The wheel (down) zooms out around the cursor.
    await page.mouse.move(box.x + box.width / 2, y);
    await page.mouse.wheel(0, 100);
    await page.waitForFunction((before) => {
      const v = window.canopyView.state.view;
      return v.to - v.from > before;
    }, panned.to - panned.from);

    // Reset shows the whole run again and fetches it again.
    const reset = page.waitForResponse((r) => r.url().includes('api/series') && r.url().includes(`from=${full.from}&`));
    await page.click('[data-testid="reset-zoom"]');
    await reset;
    assert.deepEqual(await page.evaluate(() => ({ ...window.canopyView.state.view })), full);
    assert.deepEqual(errors, []);
  });
});
