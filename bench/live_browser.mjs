// A page of `canopy record --serve` left open while the recording runs, as a user
// watching it would (bench/live.py): opens URL in a real Chromium and stays until the
// page says the recording has ended. Prints, as JSON, how many updates the page merged
// and how late the chart drew the figures (web/src/live.js, noteDrawn).
//
//   node bench/live_browser.mjs URL
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(path.join(path.dirname(fileURLToPath(import.meta.url)), '../web/package.json'));
const { chromium } = require('playwright-core');

const [url] = process.argv.slice(2);
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: ['--no-sandbox', '--disable-gpu'] });
try {
  const page = await (await browser.newContext({ viewport: { width: 1600, height: 1000 } })).newPage();
  await page.goto(url);
  await page.waitForFunction(() => window.canopyView && window.canopyView.state, null, { timeout: 120000 });
  await page.waitForFunction(() => !window.canopyView.live || !window.canopyView.live.following, null, { timeout: 0, polling: 500 });
  console.log(JSON.stringify(await page.evaluate(() => {
    const live = window.canopyView.live;
    return live ? { updates: live.updates, draws: live.latency.draws, worstMs: live.latency.worstMs, lastMs: live.latency.lastMs } : { updates: 0 };
  })));
} finally {
  await browser.close();
}
