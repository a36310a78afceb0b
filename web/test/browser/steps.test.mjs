// Between two samples nothing was measured, so the chart draws steps and every reading
// of it agrees: memory holds a sample's value until the next sample, CPU (a rate over the
// interval ending at its sample) back to the previous one. The hover, the information
// panel and a time pinned from an event line between two ticks all take the sample
// whose step is drawn there, and the panel says which one it shows.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { formatBytes, formatElapsed, formatPercent } from '../../src/format.js';
import { screenshot, treeViewSuite, waitReady, watchErrors } from './harness.mjs';

describe('canopy view: steps', () => {
  const suite = treeViewSuite('canopy-steps-');
  let events;

  before(async () => {
    events = (await (await fetch(`${suite.server.url}api/events`)).json()).events;
  });

  async function open() {
    const page = await (await suite.browser.newContext({ viewport: { width: 1600, height: 1000 } })).newPage();
    const errors = watchErrors(page);
    await page.goto(suite.server.url);
    await waitReady(page);
    return { page, errors };
  }

  // The two neighbouring drawn points where the total rises most, and the plot's pixels
  // of that gap: x halfway, the y of each side's total, and of a ramp's middle.
  function steepestRise(page) {
    return page.evaluate(() => {
      const view = window.canopyView;
      const u = view.chart;
      const { x, total } = view.frame;
      let i = 0;
      for (let j = 1; j + 1 < x.length; j++) if (total[j + 1] - total[j] > total[i + 1] - total[i]) i = j;
      const xMid = (x[i] + x[i + 1]) / 2;
      return {
        i,
        left: u.valToPos(xMid, 'x'),
        yBefore: u.valToPos(total[i], 'y'),
        yAfter: u.valToPos(total[i + 1], 'y'),
        yRamp: u.valToPos((total[i] + total[i + 1]) / 2, 'y'),
        pixelRatio: devicePixelRatio,
      };
    });
  }

  // The share of painted canvas pixels in a column of the plot between two heights (CSS px).
  function paintedBetween(page, left, yTop, yBottom) {
    return page.evaluate(({ left, yTop, yBottom }) => {
      const u = window.canopyView.chart;
      const r = devicePixelRatio;
      const x = Math.round(u.bbox.left + left * r);
      const top = Math.round(u.bbox.top + yTop * r);
      const height = Math.max(1, Math.round((yBottom - yTop) * r));
      const pixels = u.ctx.getImageData(x, top, 1, height).data;
      let painted = 0;
      for (let i = 3; i < pixels.length; i += 4) if (pixels[i] > 0) painted++;
      return painted / height;
    }, { left, yTop, yBottom });
  }

  test('memory is drawn as steps: the value holds until the next sample, no ramp', async () => {
    const { page, errors } = await open();
    const rise = await steepestRise(page);
    // The children touch 50 to 150 MiB each: the steepest rise spans many pixels, though
    // a loaded machine can split a child's touching over two samples.
    assert.ok(rise.yBefore - rise.yAfter >= 16, `the steepest rise is ${rise.yBefore - rise.yAfter} px`);
    // Halfway across the gap, above the earlier total, a ramp would be filled; a step
    // leaves it empty but for grid lines.
    const aboveStep = await paintedBetween(page, rise.left, rise.yRamp + 2, rise.yBefore - 2);
    assert.ok(aboveStep < 0.25, `${(aboveStep * 100).toFixed(0)}% painted above the step`);
    const belowStep = await paintedBetween(page, rise.left, rise.yBefore + 2, rise.yBefore + 10);
    assert.ok(belowStep > 0.9, `${(belowStep * 100).toFixed(0)}% painted below the step`);
    await screenshot(page, suite.env, 'view-steps');
    assert.deepEqual(errors, []);
  });

  test('hovering between two samples reads the earlier for memory, the later for CPU', async () => {
    const { page, errors } = await open();
    const box = await page.locator('.u-over').boundingBox();
    for (const metric of ['rss', 'cpu']) {
      if (metric === 'cpu') {
        await page.selectOption('[data-testid="metric-select"]', 'cpu');
        await page.waitForFunction(() => document.querySelector('[data-testid="chart"]').dataset.metric === 'cpu');
      }
      // A gap between two drawn points, and the band drawn there: the highest layer of
      // the point the step holds.
      const probe = await page.evaluate((metric) => {
        const view = window.canopyView;
        const u = view.chart;
        const { x, t, cum } = view.frame;
        const held = (i) => (metric === 'cpu' ? i + 1 : i);
        const height = (k, h) => cum[k][h] - (k > 0 ? cum[k - 1][h] : 0);
        // The thickest band of any gap 8 px wide or more: easy to point at.
        let best = null;
        for (let j = 0; j + 1 < x.length; j++) {
          if (u.valToPos(x[j + 1], 'x') - u.valToPos(x[j], 'x') < 8) continue;
          for (let k = 0; k < cum.length; k++) {
            if (!best || height(k, held(j)) > height(best.k, held(best.i))) best = { i: j, k };
          }
        }
        if (!best || height(best.k, held(best.i)) <= 0) return null;
        const { i, k } = best;
        const h = held(i);
        const below = k > 0 ? cum[k - 1][h] : 0;
        return {
          left: u.valToPos((x[i] + x[i + 1]) / 2, 'x'),
          top: u.valToPos((below + cum[k][h]) / 2, 'y'),
          value: cum[k][h] - below,
          heldT: t[h],
        };
      }, metric);
      assert.ok(probe, `no gap of 8 px with a band in the ${metric} chart`);
      await page.mouse.move(box.x + probe.left, box.y + probe.top);
      await page.locator('.chart-tip:not([hidden])').waitFor();
      const shown = await page.locator('.chart-tip .tip-value').textContent();
      assert.equal(shown, metric === 'cpu' ? formatPercent(probe.value) : formatBytes(probe.value), metric);
      await page.waitForFunction((t) => Number(document.querySelector('[data-testid="info-panel"]').dataset.t) === t, probe.heldT);
    }
    assert.deepEqual(errors, []);
  });

  test('an event pinned between two ticks shows the sample in effect, and says which', async () => {
    const { page, errors } = await open();
    const ticks = (await (await fetch(`${suite.server.url}api/series?metric=rss&points=20000`)).json()).t;
    const exec = events.find((e) => e.kind === 'exec' && !ticks.includes(e.t) && e.t > ticks[0] && e.t < ticks[ticks.length - 1]);
    assert.ok(exec, `no exec event between two ticks in ${JSON.stringify(events)}`);
    const before = ticks.filter((t) => t <= exec.t).pop();
    const after = ticks.find((t) => t >= exec.t);
    await page.click(`[data-testid="event-row"][data-kind="exec"][data-t="${exec.t}"]`);
    const start = suite.recording.meta.start_ms;
    const asked = formatElapsed(exec.t - start, 3);
    assert.equal(await page.locator('[data-testid="pinned-time"]').textContent(), `pinned at ${asked}`);
    const panel = page.locator('[data-testid="info-panel"]');
    await page.waitForFunction((t) => Number(document.querySelector('[data-testid="info-panel"]').dataset.t) === t, before);
    assert.equal(await page.locator('[data-testid="info-time"]').textContent(), formatElapsed(before - start, 3));
    assert.equal(await page.locator('[data-testid="info-why"]').textContent(),
      `pinned ${asked} · the last sample before it (values hold until the next sample)`);
    assert.equal(await panel.getAttribute('data-asked-t'), String(exec.t));
    await screenshot(page, suite.env, 'view-pinned-between-ticks');
    // CPU over the interval holding the pinned time: the next tick's.
    await page.selectOption('[data-testid="metric-select"]', 'cpu');
    await page.waitForFunction((t) => Number(document.querySelector('[data-testid="info-panel"]').dataset.t) === t, after);
    assert.equal(await page.locator('[data-testid="info-why"]').textContent(),
      `pinned ${asked} · the first sample after it (its CPU is over the interval holding ${asked})`);
    assert.deepEqual(errors, []);
  });
});
