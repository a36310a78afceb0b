// While `canopy view` loads the samples of a large recording it answers GET
// /api/recording?preview=1 with a preview ("loading": true, the tree's total from the
// tick table) and holds GET /api/recording until the load ends. The page draws the
// preview at once, then swaps it for the full page. A small recording loads before any
// request, so the test plays the server's loading through the browser's routing: the
// preview's body is built from the server's own figures (its shape is what the C++
// test, tests/integration/view_loading_test.cpp, checks the server sends), and the
// recording's request is held until the test has looked at the preview.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { screenshot, treeViewSuite, waitReady, watchErrors } from './harness.mjs';

describe('canopy view: the preview while loading', () => {
  const suite = treeViewSuite('canopy-loading-');
  let preview;

  // What the server would answer while loading, from its own figures.
  before(async () => {
    const recording = suite.recording;
    const series = await (await fetch(`${suite.server.url}api/series?metric=rss&points=2000`)).json();
    preview = {
      loading: true,
      file: recording.file,
      process_count: recording.processes.length,
      meta: recording.meta,
      metrics: recording.metrics,
      peak: recording.peak,
      total: { metric: 'rss', t: series.t, values: series.total },
    };
  });

  test('draws the tree total first, then the whole page when loaded', async () => {
    const page = await (await suite.browser.newContext({ viewport: { width: 1600, height: 1000 } })).newPage();
    const errors = watchErrors(page);
    let release;
    const released = new Promise((resolve) => (release = resolve));
    const asked = { preview: 0, recording: 0 };
    await page.route('**/api/recording*', async (route) => {
      if (new URL(route.request().url()).searchParams.has('preview')) {
        asked.preview++;
        return route.fulfill({ json: preview });
      }
      asked.recording++;
      await released;
      return route.continue();
    });
    await page.goto(suite.server.url);

    const first = await page.evaluate(() => window.canopyView.firstChart);
    assert.deepEqual(first, { preview: true, points: preview.total.t.length });
    const shown = await page.evaluate(() => {
      const view = window.canopyView;
      return {
        values: view.preview.u.data[1],
        xs: view.preview.u.data[0],
        xMax: view.preview.u.scales.x.max,
        appStarted: view.state != null,
        status: document.querySelector('[data-testid="status"]').textContent,
        processes: [...document.querySelectorAll('[data-testid="facts"] dd')].map((d) => d.textContent),
      };
    });
    assert.deepEqual(shown.values, preview.total.values, 'the preview draws the total the server sent');
    assert.equal(shown.xs[0], (preview.total.t[0] - preview.meta.start_ms) / 1000);
    assert.equal(shown.xMax, (preview.meta.end_ms - preview.meta.start_ms) / 1000, 'the full recording in view');
    assert.equal(shown.appStarted, false, 'the full page waits for the loaded recording');
    assert.match(shown.status, /loading/);
    assert.ok(shown.processes.includes(String(preview.process_count)), `facts: ${shown.processes}`);
    await screenshot(page, suite.env, 'loading-preview');

    release();
    await waitReady(page);
    assert.deepEqual(asked, { preview: 1, recording: 1 });
    const loaded = await page.evaluate(() => ({
      preview: window.canopyView.preview,
      plots: document.querySelectorAll('[data-testid="chart"] .uplot').length,
      status: document.querySelector('[data-testid="status"]').textContent,
      layers: window.canopyView.layers.length,
    }));
    assert.equal(loaded.preview, null);
    assert.equal(loaded.plots, 1, 'the preview chart is gone, the full chart drawn');
    assert.doesNotMatch(loaded.status, /loading/);
    assert.ok(loaded.layers > 1, `bands per process: ${loaded.layers}`);
    await screenshot(page, suite.env, 'loading-loaded');
    assert.deepEqual(errors, []);
  });
});
