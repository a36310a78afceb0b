// One time format everywhere, on either clock: the pinned time, the event row, the
// information panel, the tooltip and the axis write a moment alike, since the start or
// on the wall clock of the recording (its UTC offset, not the viewer's), kept in the URL.
// Axis titles name the unit; the CPU chart draws the machine's CPU count as a ceiling.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { kTreeCommand, screenshot, treeViewSuite, waitReady, watchErrors } from './harness.mjs';

// The standard tree, and a child busy on one core for 1.5 s of its own CPU time.
const kCommand = ['sh', '-c', `"$W" spin 1500 & ${kTreeCommand[2]}`];

// "m:ss.mmm" since the start; "hh:mm:ss.mmm" at the recorded offset. Written here from
// Date's arithmetic, not from the page's module.
function elapsedText(ms) {
  const s = Math.floor(ms / 1000);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}.${String(ms % 1000).padStart(3, '0')}`;
}
function wallText(tMs, offsetS) {
  const d = new Date(tMs + offsetS * 1000);
  const two = (n) => String(n).padStart(2, '0');
  return `${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())}.${String(d.getUTCMilliseconds()).padStart(3, '0')}`;
}

describe('canopy view: time format and clock', () => {
  const suite = treeViewSuite('canopy-clock-', { command: kCommand });
  let events;

  before(async () => {
    events = (await (await fetch(`${suite.server.url}api/events`)).json()).events;
  });

  async function open(hash = '') {
    const page = await (await suite.browser.newContext({ viewport: { width: 1600, height: 1000 } })).newPage();
    const errors = watchErrors(page);
    await page.goto(`${suite.server.url}${hash}`);
    await waitReady(page);
    return { page, errors };
  }

  // Pins an exec event from its row and hovers the tick the panel then shows: returns
  // each place a moment is written, with the moments they write.
  async function pinAndRead(page, exec) {
    await page.click(`[data-testid="event-row"][data-kind="exec"][data-t="${exec.t}"]`);
    await page.waitForFunction((t) => document.querySelector('[data-testid="info-panel"]').dataset.askedT === String(t), exec.t);
    const tick = Number(await page.locator('[data-testid="info-panel"]').getAttribute('data-t'));
    const box = await page.locator('.u-over').boundingBox();
    const x = await page.evaluate((t) => window.canopyView.chart.valToPos((t - window.canopyView.startMs) / 1000, 'x'), tick);
    await page.mouse.move(box.x + x, box.y + box.height - 3);
    await page.waitForFunction(() => !document.querySelector('.chart-tip').hidden);
    const read = await page.evaluate((t) => ({
      pinned: document.querySelector('[data-testid="pinned-time"]').textContent,
      info: document.querySelector('[data-testid="info-time"]').textContent,
      row: document.querySelector(`[data-testid="event-row"][data-kind="exec"][data-t="${t}"] .c-time`).textContent,
      tip: document.querySelector('.tip-time').textContent,
      tipT: (() => {
        const view = window.canopyView;
        const u = view.chart;
        return view.frame.t[view.frame.x.findIndex((x) => Math.abs(u.valToPos(x, 'x') - u.cursor.left) < 1.5)];
      })(),
      axis: window.canopyView.chart.axes[0]._values,
      xTitle: window.canopyView.chart.axes[0].label(window.canopyView.chart),
    }), exec.t);
    return { ...read, tick };
  }

  test('a moment reads the same everywhere, since the start and on the wall clock', async () => {
    const { page, errors } = await open();
    const exec = events.find((e) => e.kind === 'exec');
    assert.ok(exec, 'the tree has exec events');
    const start = suite.recording.meta.start_ms;
    const offset = suite.recording.meta.utc_offset_s;
    assert.ok(Number.isInteger(offset), `the recording keeps its UTC offset (${offset})`);

    const since = await pinAndRead(page, exec);
    assert.equal(since.pinned, `pinned at ${elapsedText(exec.t - start)}`);
    assert.equal(since.row, elapsedText(exec.t - start));
    assert.equal(since.info, elapsedText(since.tick - start));
    assert.equal(since.tip, elapsedText(since.tipT - start));
    assert.match(since.xTitle, /since the start/);
    for (const label of since.axis) assert.match(label, /^\d+:\d\d(\.\d+)?$/);

    await page.click('[data-testid="clock-toggle"]');
    await page.waitForFunction(() => /clock=wall/.test(location.hash));
    // The row click toggles nothing: pinning the same time again keeps it pinned.
    const wall = await pinAndRead(page, exec);
    assert.equal(wall.pinned, `pinned at ${wallText(exec.t, offset)}`);
    assert.equal(wall.row, wallText(exec.t, offset));
    assert.equal(wall.info, wallText(wall.tick, offset));
    assert.equal(wall.tip, wallText(wall.tipT, offset));
    assert.match(wall.xTitle, /^wall clock \(.*UTC[+-]\d\d:\d\d\)/);
    for (const label of wall.axis) assert.match(label, /^\d\d:\d\d:\d\d(\.\d+)?$/);
    const range = await page.locator('[data-testid="view-range"]').textContent();
    // The whole run's range, to the second (rounded).
    assert.ok(range.startsWith(`${wallText(Math.round(start / 1000) * 1000, offset).slice(0, 8)} – `), range);
    await screenshot(page, suite.env, 'clock-wall');

    // Kept in the URL: a reload opens on the wall clock.
    await page.reload();
    await waitReady(page);
    assert.equal(await page.isChecked('[data-testid="clock-toggle"]'), true);
    assert.match((await page.evaluate(() => window.canopyView.chart.axes[0]._values))[0], /^\d\d:\d\d:\d\d/);
    assert.deepEqual(errors, []);
  });

  test('the CPU axis is a share of one core, with the machine as its ceiling', async () => {
    const { page, errors } = await open();
    assert.match(await page.evaluate(() => window.canopyView.chart.axes[1].label(window.canopyView.chart)), /bytes/);
    await page.selectOption('[data-testid="metric-select"]', 'cpu');
    await page.waitForFunction(() => document.querySelector('[data-testid="chart"]').dataset.metric === 'cpu');
    const cpus = suite.recording.meta.cpu_count;
    assert.ok(cpus >= 1, `the recording keeps the CPU count (${cpus})`);
    const got = await page.evaluate(() => {
      const u = window.canopyView.chart;
      const chart = document.querySelector('[data-testid="chart"]');
      return { title: u.axes[1].label(u), ceiling: chart.dataset.ceiling, yMax: u.scales.y.max, peak: Math.max(...window.canopyView.frame.total) };
    });
    assert.equal(got.title, `CPU, % of one core (${cpus} ${cpus === 1 ? 'CPU' : 'CPUs'}: ${cpus * 100}%)`);
    // The spinning child keeps the stack near one core: on a machine of up to 4 CPUs it
    // reaches a quarter of the ceiling and the line is drawn; on a larger one it may not.
    if (got.peak >= (cpus * 100) / 4) {
      assert.equal(got.ceiling, String(cpus * 100));
      assert.ok(got.yMax >= cpus * 100);
      // The line is painted: red pixels across the plot at its height.
      const red = await page.evaluate((value) => {
        const u = window.canopyView.chart;
        const y = Math.round(u.valToPos(value, 'y', true));
        const { left, width } = u.bbox;
        const pixels = u.ctx.getImageData(left, y, width, 1).data;
        let count = 0;
        for (let i = 0; i < pixels.length; i += 4) if (pixels[i] > 150 && pixels[i + 1] < 120 && pixels[i + 3] > 0) count++;
        return count / width;
      }, cpus * 100);
      assert.ok(red > 0.3, `${(red * 100).toFixed(0)}% of the ceiling's row is red`);
    } else {
      assert.equal(got.ceiling, undefined);
    }
    await screenshot(page, suite.env, 'clock-cpu-ceiling');
    assert.deepEqual(errors, []);
  });
});
