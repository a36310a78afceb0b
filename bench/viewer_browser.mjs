// The viewer in a real Chromium on a large recording: time from navigation to the
// first chart drawn, and from a zoom to the chart redrawn at full resolution for the
// new range. Prints markdown table rows (median of RUNS, min, max), like viewer.cpp.
//
//   node bench/viewer_browser.mjs CANOPY RECORDING [RUNS]
// playwright-core comes from web/node_modules (make deps); the browser is Debian's.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(path.join(path.dirname(fileURLToPath(import.meta.url)), '../web/package.json'));
const { chromium } = require('playwright-core');

const [canopy, recording, runsArg] = process.argv.slice(2);
const runs = Number(runsArg || 5);

function startView() {
  const child = spawn(canopy, ['view', recording, '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const match = out.match(/http:\/\/\S+\//);
      if (match) resolve({ child, url: match[0] });
    });
    child.on('exit', (code) => reject(new Error(`canopy view exited with ${code}`)));
  });
}

function row(what, times) {
  const sorted = [...times].sort((a, b) => a - b);
  const f = (v) => v.toFixed(0);
  console.log(`| ${what} | ${f(sorted[Math.floor(sorted.length / 2)])} | ${f(sorted[0])} | ${f(sorted.at(-1))} | |`);
}

const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu'],
});

// From the command to the first chart drawn, as a user sees it: `canopy view` serves a
// preview (the tree's total) while it loads the samples, then the page draws them all.
{
  const serving = [];
  const firstCharts = [];
  const fullCharts = [];
  let previews = 0;
  for (let i = 0; i < runs; ++i) {
    const page = await browser.newPage({ viewport: { width: 1600, height: 900 } });
    const started = Date.now();
    const { child, url } = await startView();
    serving.push(Date.now() - started);
    try {
      await page.goto(url);
      const first = await page.evaluate(() => window.canopyView.firstChart);
      firstCharts.push(Date.now() - started);
      if (first.preview) previews++;
      await page.evaluate(() => window.canopyView.ready);
      fullCharts.push(Date.now() - started);
    } finally {
      child.kill('SIGTERM');
      await page.close();
    }
  }
  row('canopy view start-up, until it serves', serving);
  row(`command to the first chart drawn (the tree's total while the samples load: ${previews} of ${runs} runs)`, firstCharts);
  row('command to the full chart drawn (every process)', fullCharts);
}

const { child, url } = await startView();
try {
  const page = await browser.newPage({ viewport: { width: 1600, height: 900 } });
  const opens = [];
  for (let i = 0; i < runs; ++i) {
    const before = Date.now();
    await page.goto(url);
    await page.evaluate(() => window.canopyView.ready);
    opens.push(Date.now() - before);
  }
  row('page open: navigation to the first chart drawn (server running)', opens);

  // Zoom to a 10-minute window in the middle, then wait until the chart draws the
  // refetched series for it (the page waits 150 ms for the zoom to settle first).
  const zooms = [];
  for (let i = 0; i < runs; ++i) {
    zooms.push(
      await page.evaluate(async (step) => {
        const view = window.canopyView;
        const fetchesBefore = view.state.fetches;
        const span = (view.endMs - view.startMs) / 1000;
        const min = span / 3 + step * 60;
        const t0 = performance.now();
        view.chart.setScale('x', { min, max: min + 600 });
        // state.fetches counts the series the page has received and drawn.
        while (view.state.fetches === fetchesBefore) {
          if (performance.now() - t0 > 30000) throw new Error('the zoom was never redrawn');
          await new Promise((r) => setTimeout(r, 5));
        }
        return performance.now() - t0;
      }, i),
    );
  }
  row('zoom to 10 minutes, until redrawn at full resolution (includes the 150 ms settle delay)', zooms);
} finally {
  await browser.close();
  child.kill('SIGTERM');
}
