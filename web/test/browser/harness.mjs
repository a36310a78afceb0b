// What the browser tests share: the environment they need, a real recording made by the
// real canopy of the real workload, `canopy view` started and stopped, Chromium, and
// small readers of what the page shows.
//
//   CANOPY_BIN        the canopy binary
//   CANOPY_WORKLOAD   the workload binary (tests/workload/canopy_workload)
//   CANOPY_ARTIFACTS  a directory for screenshots (created when missing)
//   CANOPY_REFRESH_DOCS_SCREENSHOT  when 1, the README's screenshot (docs/viewer.png)
//                     is written anew from the default view (make docs-screenshot)
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before } from 'node:test';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';

export const MiB = 1048576;

export function environment() {
  const missing = ['CANOPY_BIN', 'CANOPY_WORKLOAD', 'CANOPY_ARTIFACTS'].filter((name) => !process.env[name]);
  if (missing.length) throw new Error(`the browser tests need ${missing.join(', ')} set (see web/test/browser/harness.mjs)`);
  const env = { bin: process.env.CANOPY_BIN, workload: process.env.CANOPY_WORKLOAD, artifacts: process.env.CANOPY_ARTIFACTS };
  fs.mkdirSync(env.artifacts, { recursive: true });
  return env;
}

// The profilers' workloads, for the tests of the profile panes:
//   CANOPY_CPU_WORKLOAD        tests/workload/cpu_workload.c
//   CANOPY_HEAP_WORKLOAD       tests/workload/heap_workload.cpp (frame pointers)
//   CANOPY_HEAP_WORKLOAD_NOFP  the same without frame pointers (its `child`)
export function profileEnvironment() {
  const names = ['CANOPY_CPU_WORKLOAD', 'CANOPY_HEAP_WORKLOAD', 'CANOPY_HEAP_WORKLOAD_NOFP'];
  const missing = names.filter((name) => !process.env[name]);
  if (missing.length) throw new Error(`the profile tests need ${missing.join(', ')} set (see web/test/browser/harness.mjs)`);
  return {
    cpuWorkload: process.env.CANOPY_CPU_WORKLOAD,
    heapWorkload: process.env.CANOPY_HEAP_WORKLOAD,
    heapWorkloadNoFp: process.env.CANOPY_HEAP_WORKLOAD_NOFP,
  };
}

export function tempDir(prefix) {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

// Records `command` (argv) with canopy; returns the recording's path and the report's
// JSON summary (the expected figures).
export function record(env, dir, name, recordArgs, command) {
  const file = path.join(dir, `${name}.canopy`);
  execFileSync(env.bin, ['record', '-q', ...recordArgs, '-o', file, '--', ...command], {
    env: { ...process.env, W: env.workload },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const summary = JSON.parse(execFileSync(env.bin, ['report', file, '--json']).toString());
  return { file, summary };
}

// The standard tree of the tests: `canopy_workload tree` (children holding 50, 100 and
// 150 MiB for 1 s, and a 20 MiB daemon), beside a shell that execs into `hold 30 1500`.
export const kTreeCommand = ['sh', '-c', '"$W" tree & sleep 0.5; exec "$W" hold 30 1500'];

// Starts `canopy view FILE --port 0` and resolves with its URL once it printed it.
export function startView(env, file) {
  const child = spawn(env.bin, ['view', file, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`canopy view printed no URL: ${output}`)), 30000);
    const onData = (chunk) => {
      output += chunk;
      const match = output.match(/http:\/\/127\.0\.0\.1:\d+\//);
      if (match) {
        clearTimeout(timer);
        resolve({ url: match[0], stop: () => child.kill('SIGTERM') });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('exit', (code) => reject(new Error(`canopy view exited (${code}): ${output}`)));
  });
}

// Starts `canopy record --serve=127.0.0.1:0 RECORD_ARGS -o FILE -- COMMAND` (W in its
// environment names the workload): {child, url (a promise of the page's URL), exited (a
// promise of {code, signal}), output()}. It serves until SIGINT once the command ends.
export function recordServing(env, file, recordArgs, command, extraEnv = {}) {
  const child = spawn(env.bin, ['record', '-q', '--serve=127.0.0.1:0', ...recordArgs, '-o', file, '--', ...command], {
    env: { ...process.env, W: env.workload, ...extraEnv },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  const url = new Promise((resolve, reject) => {
    child.stderr.on('data', (chunk) => {
      output += chunk;
      const match = output.match(/serving the recording live at (http:\/\/127\.0\.0\.1:\d+\/)/);
      if (match) resolve(match[1]);
    });
    exited.then(() => reject(new Error(`canopy record exited before serving: ${output}`)));
  });
  return { child, url, exited, output: () => output };
}

// The setup most suites share, as node:test hooks of the calling suite: a recording
// made once by `makeRecording(env, dir)` (which returns at least its `file`), `canopy
// view` serving it, Chromium, and the recording as the API gives it; all removed after
// the suite. The returned object's fields are set once the suite's `before` has run;
// `rec` is what makeRecording returned.
export function viewSuite(prefix, makeRecording) {
  const suite = { env: null, dir: null, rec: null, server: null, browser: null, recording: null };
  before(async () => {
    suite.env = environment();
    suite.dir = tempDir(prefix);
    suite.rec = makeRecording(suite.env, suite.dir);
    suite.server = await startView(suite.env, suite.rec.file);
    suite.browser = await launchBrowser();
    suite.recording = await (await fetch(`${suite.server.url}api/recording`)).json();
  });
  after(async () => {
    if (suite.browser) await suite.browser.close();
    if (suite.server) suite.server.stop();
    if (suite.dir) fs.rmSync(suite.dir, { recursive: true, force: true });
  });
  return suite;
}

// viewSuite on `command` recorded by `record` into DIR/NAME.canopy with `recordArgs`:
// the standard tree unless told. A command that names a binary of the environment
// (env.workload, profileEnvironment()) is given as a function of `env`, since the
// environment is read only once the suite runs.
export function treeViewSuite(prefix, { name = 'tree', recordArgs = [], command = kTreeCommand } = {}) {
  return viewSuite(prefix, (env, dir) => record(env, dir, name, recordArgs, typeof command === 'function' ? command(env) : command));
}

// The setup of the suites that follow a recording live, as node:test hooks of the
// calling suite: a temporary directory (the workload's gates and files: D in its
// environment), Chromium, and `suite.serve(...)`, which a test calls once it is ready to
// start the workload under `canopy record --serve` and open its page. After the suite,
// `endWorkload(suite)` lets a workload that still runs end (each suite's own way: gates
// opened, a PID signalled), then canopy is killed if it still serves and the directory
// removed. The returned object's fields are set once the suite's `before` has run.
export function servingSuite(prefix, endWorkload) {
  const suite = { env: null, dir: null, browser: null, serving: null };
  before(async () => {
    suite.env = environment();
    suite.dir = tempDir(prefix);
    suite.browser = await launchBrowser();
  });
  after(async () => {
    if (suite.browser) await suite.browser.close();
    if (suite.dir) endWorkload(suite);
    if (suite.serving && suite.serving.child.exitCode == null) suite.serving.child.kill('SIGKILL');
    if (suite.dir) fs.rmSync(suite.dir, { recursive: true, force: true });
  });
  // Records `command` into DIR/NAME.canopy while serving it (recordServing), opens the
  // page in a browser of `viewport` and waits until it is ready: {page, errors}.
  suite.serve = async ({ name, recordArgs = [], command, viewport }) => {
    suite.serving = recordServing(suite.env, path.join(suite.dir, `${name}.canopy`), recordArgs, command, { D: suite.dir });
    const url = await suite.serving.url;
    const page = await (await suite.browser.newContext({ viewport })).newPage();
    const errors = watchErrors(page);
    await page.goto(url);
    await waitReady(page);
    return { page, errors };
  };
  return suite;
}

export function launchBrowser() {
  return chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: ['--no-sandbox', '--disable-gpu'] });
}

// Collects uncaught page errors and console errors: a test ends by asserting none.
export function watchErrors(page) {
  const errors = [];
  page.on('pageerror', (error) => errors.push(`pageerror: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(`console: ${message.text()}`);
  });
  return errors;
}

export async function waitReady(page) {
  await page.waitForFunction(() => window.canopyView && window.canopyView.state);
  await page.evaluate(() => window.canopyView.ready.then(() => true));
}

export function chartData(page) {
  return page.evaluate(() => {
    const u = window.canopyView.chart;
    const chart = document.querySelector('[data-testid="chart"]');
    return {
      yMax: u.scales.y.max,
      xMin: u.scales.x.min,
      xMax: u.scales.x.max,
      points: u.data[0].length,
      layers: window.canopyView.layers,
      dataset: { ...chart.dataset },
      yLabels: u.axes[1]._values,
    };
  });
}

// Pixels of the plot area that are not blank: the canvas is transparent where nothing
// was drawn.
export function paintedShare(page) {
  return page.evaluate(() => {
    const u = window.canopyView.chart;
    const { left, top, width, height } = u.bbox;
    const pixels = u.ctx.getImageData(left, top, width, height).data;
    let painted = 0;
    for (let i = 3; i < pixels.length; i += 4) if (pixels[i] > 0) painted++;
    return painted / (width * height);
  });
}

// Clicks the chart at time tMs (ms since the epoch), near the top of the plot.
export async function clickChartAt(page, tMs, yFraction = 0.05) {
  const point = await page.evaluate(({ t, f }) => {
    const u = window.canopyView.chart;
    return { x: u.valToPos((t - window.canopyView.startMs) / 1000, 'x'), y: u.over.clientHeight * f };
  }, { t: tMs, f: yFraction });
  const box = await page.locator('.u-over').boundingBox();
  await page.mouse.click(box.x + point.x, box.y + point.y);
}

// Pins the information panel at the first drawn tick at or after `tMs`, and waits until
// it shows that tick. Returns the tick's time. A click where the panel is pinned already
// would unpin it, so there it does nothing.
export async function pinFirstTickFrom(page, tMs) {
  const isPinnedAt = (pinned) => {
    const panel = document.querySelector('[data-testid="info-panel"]');
    return panel.dataset.how === 'pinned' && Number(panel.dataset.t) === pinned;
  };
  const t = await page.evaluate((from) => window.canopyView.frame.t.find((x) => x >= from), tMs);
  if (!(await page.evaluate(isPinnedAt, t))) {
    await clickChartAt(page, t);
    await page.waitForFunction(isPinnedAt, t);
  }
  return t;
}

// The rows of the information panel: id, name, pid and the resident column in bytes.
export function infoRows(page) {
  return page.evaluate(() => [...document.querySelectorAll('[data-testid="info-row"]:not([hidden])')].map((row) => ({
    id: row.dataset.id ? Number(row.dataset.id) : null,
    cells: [...row.children].map((cell) => cell.textContent),
  })));
}

const kUnits = { B: 1, KiB: 1024, MiB: 1024 ** 2, GiB: 1024 ** 3, TiB: 1024 ** 4 };

export function parseBytes(text) {
  const match = /^(-?[\d.]+) (B|KiB|MiB|GiB|TiB)$/.exec(text.trim());
  if (!match) throw new Error(`not a size: '${text}'`);
  return Number(match[1]) * kUnits[match[2]];
}

// The hold children of `canopy_workload tree`: {mib: process} by their argument.
export function holdChildren(processes) {
  const children = new Map();
  for (const p of processes) {
    const args = p.cmdline || [];
    if (args[1] === 'hold' && args[4] === 'child') children.set(Number(args[2]), p);
  }
  return children;
}

export async function screenshot(page, env, name) {
  await page.screenshot({ path: path.join(env.artifacts, `${name}.png`) });
}

// A picture of the profile panes alone (they sit below the page's first screen).
export async function paneShot(page, env, name) {
  await page.locator('[data-testid="profiles"]').screenshot({ path: path.join(env.artifacts, `${name}.png`) });
}

// The README's picture of the viewer, taken by the test that checks what it shows, on
// request only: a test run leaves the source tree as it found it.
export async function docsScreenshot(page) {
  if (process.env.CANOPY_REFRESH_DOCS_SCREENSHOT !== '1') return;
  const docs = new URL('../../../docs/viewer.png', import.meta.url);
  await page.screenshot({ path: docs.pathname });
}

export function within(actual, expected, fraction) {
  return Math.abs(actual - expected) <= Math.abs(expected) * fraction;
}

// Clicks the middle of the band of process `id` at time tMs (a tick the chart draws).
export async function clickBandOf(page, id, tMs) {
  const point = await page.evaluate(({ id, t }) => {
    const view = window.canopyView;
    const u = view.chart;
    const frame = view.frame;
    const i = frame.t.indexOf(t);
    const k = frame.layers.findIndex((layer) => layer.ids.includes(id));
    if (i < 0 || k < 0) return null;
    const middle = (frame.cum[k][i] + (k > 0 ? frame.cum[k - 1][i] : 0)) / 2;
    return { x: u.valToPos(frame.x[i], 'x'), y: u.valToPos(middle, 'y') };
  }, { id, t: tMs });
  if (!point) throw new Error(`no band of process ${id} at ${tMs}`);
  const box = await page.locator('.u-over').boundingBox();
  await page.mouse.click(box.x + point.x, box.y + point.y);
}

// Opens an HTML report from file:// with the network cut off; `requests` collects every
// URL the page asked for (the report itself and nothing else, if it is self-contained).
export async function openReportOffline(browser, html) {
  const context = await browser.newContext({ viewport: { width: 1600, height: 1000 }, offline: true });
  const requests = [];
  context.on('request', (request) => requests.push(request.url()));
  await context.route('**/*', (route) => (route.request().url().startsWith('file:') ? route.continue() : route.abort()));
  const page = await context.newPage();
  const errors = watchErrors(page);
  const url = pathToFileURL(html).href;
  await page.goto(url);
  await waitReady(page);
  return { page, errors, requests, url };
}
