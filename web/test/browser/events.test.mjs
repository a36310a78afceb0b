// The events pane on a recording with logs: a command whose output canopy captured
// (--capture-output), a marker it set (canopy mark), and an imported log of 100,000
// lines whose times the test wrote, so every expected line is known. The pane pages
// through the server (canopy view) or the report's embedded share (report --html).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, test } from 'node:test';
import { clickChartAt, openReportOffline, screenshot, viewSuite, waitReady, watchErrors } from './harness.mjs';

const kLines = 100000;
const kTraceLine = 50000; // this entry carries a three-line stack trace
const kTrace = 'Traceback (most recent call last):\n  File "job.py", line 7, in run\nValueError: bad input';
const kCommand = 'echo out; echo err >&2; "$CANOPY" mark "phase 2"; printf "multi\\nline\\n"; sleep 1';

// "2026-11-22 08:02:19,587": the log's own format, in UTC.
function stamp(tMs) {
  const iso = new Date(tMs).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)},${iso.slice(20, 23)}`;
}

function lineText(i) {
  return i === kLines - 1 ? 'INFO the last line' : `INFO line ${i}`;
}

describe('the events pane with logs', () => {
  let times; // of the log lines, by line number
  let total; // lines the pane lists by default: every kind but start and end

  // A recording of kCommand, and a log imported into it with lines evenly over its span.
  const suite = viewSuite('canopy-events-', (env, dir) => {
    const file = path.join(dir, 'logs.canopy');
    execFileSync(env.bin, ['record', '-q', '--capture-output', '-o', file, '--', 'sh', '-c', kCommand], {
      env: { ...process.env, CANOPY: env.bin },
      stdio: ['ignore', 'ignore', 'ignore'],
    });
    const summary = JSON.parse(execFileSync(env.bin, ['report', file, '--json']).toString());
    // Lines evenly over the recording's span, several per millisecond.
    const first = summary.start_ms + 20;
    const span = summary.wall_ms - 40;
    times = Array.from({ length: kLines }, (_, i) => first + Math.floor((span * i) / (kLines - 1)));
    const log = path.join(dir, 'app.log');
    const text = times.map((t, i) => `${stamp(t)} ${lineText(i)}\n${i === kTraceLine ? `${kTrace}\n` : ''}`).join('');
    fs.writeFileSync(log, text);
    execFileSync(env.bin, ['log', 'add', '--tz', 'UTC', file, log], { stdio: ['ignore', 'ignore', 'inherit'] });
    return { file };
  });

  before(() => {
    const kinds = suite.recording.event_kinds;
    total = Object.entries(kinds).filter(([kind]) => kind !== 'start' && kind !== 'end').reduce((n, [, c]) => n + c, 0);
  });

  async function open(url = suite.server.url, viewport = { width: 1600, height: 1000 }) {
    const page = await (await suite.browser.newContext({ viewport })).newPage();
    const errors = watchErrors(page);
    await page.goto(url);
    await waitReady(page);
    return { page, errors };
  }

  const row = (page, line) => page.locator(`[data-testid="event-row"][data-index="${line}"]`);

  test('the recording counts what the command and the import wrote', () => {
    const kinds = suite.recording.event_kinds;
    assert.equal(kinds.log, kLines);
    assert.equal(kinds.stdout, 3); // out, multi, line
    assert.equal(kinds.stderr, 1);
    assert.equal(kinds.mark, 1);
    assert.equal(kinds.start, suite.recording.processes.length);
    assert.equal(suite.recording.log_sources.length, 1);
    assert.equal(suite.recording.log_sources[0].events, kLines);
    assert.equal(suite.recording.log_sources[0].outside_span, 0);
  });

  test('the pane shows the total, and scrolled to the end, the last line', async () => {
    const { page, errors } = await open();
    const status = await page.evaluate(() => window.canopyView.events);
    assert.equal(status.total, total);
    assert.deepEqual(status.enabled, Object.keys(suite.recording.event_kinds).filter((k) => k !== 'start' && k !== 'end').sort());
    assert.equal(await page.locator('[data-testid="events-total"]').textContent(), `${total.toLocaleString('en-US')} lines`);
    assert.equal(Number(await page.locator('[data-testid="events-panel"]').getAttribute('data-lines')), total);
    const list = page.locator('[data-testid="event-rows"]');
    await list.evaluate((el) => {
      el.scrollTop = el.scrollHeight;
    });
    const last = row(page, total - 1);
    await last.waitFor();
    assert.equal(await last.locator('.line').textContent(), 'INFO the last line');
    assert.equal(Number(await last.getAttribute('data-t')), times[kLines - 1]);
    assert.equal(await last.locator('.src-tag').textContent(), 'app.log');
    const held = await page.evaluate(() => window.canopyView.events.pages);
    assert.ok(held <= 50, `${held} pages held`);
    await screenshot(page, suite.env, 'events-end');
    assert.deepEqual(errors, []);
  });

  test('chips filter on the server and show the counts', async () => {
    const { page, errors } = await open();
    const chip = page.locator('[data-testid="event-kind"][data-kind="log"]');
    assert.equal(await chip.locator('.count').textContent(), kLines.toLocaleString('en-US'));
    const answer = page.waitForResponse((r) => r.url().includes('api/events') && !r.url().includes('log'));
    await chip.click();
    const url = new URL((await answer).url());
    assert.equal(url.searchParams.get('kinds').split(',').includes('log'), false);
    await page.waitForFunction((n) => window.canopyView.events.total === n, total - kLines);
    await row(page, 0).waitFor();
    const kinds = await page.locator('[data-testid="event-row"]').evaluateAll((rows) => rows.map((r) => r.dataset.kind));
    assert.ok(kinds.length > 0 && !kinds.includes('log'), `kinds shown: ${kinds}`);
    assert.deepEqual(errors, []);
  });

  test('a multi-line entry shows its first line; clicked, it pins its time and shows it whole', async () => {
    const { page, errors } = await open();
    const { index } = await (await fetch(`${suite.server.url}api/events?kinds=log&at=${times[kTraceLine]}`)).json();
    // Among the default kinds: the log lines before it, and the few others before it.
    const query = new URLSearchParams({ kinds: Object.keys(suite.recording.event_kinds).filter((k) => k !== 'start' && k !== 'end').join(',') });
    const at = await (await fetch(`${suite.server.url}api/events?${query}&at=${times[kTraceLine]}`)).json();
    const firstAtThatTime = times.indexOf(times[kTraceLine]);
    assert.equal(index, firstAtThatTime);
    // The lines of one millisecond keep the file's order.
    let line = at.index + (kTraceLine - firstAtThatTime);
    while (true) {
      await page.evaluate((l) => window.canopyView.revealEvent(l), line);
      const candidate = row(page, line);
      await candidate.waitFor();
      if ((await candidate.locator('.line').textContent()) === lineText(kTraceLine)) break;
      line++;
      assert.ok(line < at.index + 200, 'the entry is among the lines of its millisecond');
    }
    const entry = row(page, line);
    assert.equal(await entry.locator('.more').textContent(), '+3 lines');
    await entry.click();
    assert.equal(await page.evaluate(() => window.canopyView.state.selectedT), times[kTraceLine]);
    await page.waitForFunction(() => document.querySelector('[data-testid="info-panel"]').dataset.how === 'pinned');
    const detail = page.locator('[data-testid="event-detail"]');
    await detail.waitFor();
    assert.equal(await page.locator('[data-testid="event-detail-text"]').textContent(), `${lineText(kTraceLine)}\n${kTrace}`);
    assert.ok((await page.locator('[data-testid="event-detail-head"]').textContent()).includes('app.log'));
    assert.ok(await entry.evaluate((el) => el.classList.contains('marked') && el.classList.contains('selected')));
    await screenshot(page, suite.env, 'events-detail');
    await page.keyboard.press('Escape');
    await detail.waitFor({ state: 'hidden' });
    assert.deepEqual(errors, []);
  });

  test('a pinned time scrolls the pane to the nearest line', async () => {
    const { page, errors } = await open(suite.server.url, { width: 1600, height: 800 });
    for (const kind of Object.keys(suite.recording.event_kinds).filter((k) => !['log', 'start', 'end'].includes(k))) {
      await page.click(`[data-testid="event-kind"][data-kind="${kind}"]`);
    }
    await page.waitForFunction((n) => window.canopyView.events.total === n, kLines);
    const list = page.locator('[data-testid="event-rows"]');
    const drawn = await page.evaluate(() => window.canopyView.frame.t);
    const scrolls = [];
    for (const target of [drawn[Math.floor(drawn.length * 0.7)], drawn[Math.floor(drawn.length * 0.3)]]) {
      await clickChartAt(page, target);
      const pinned = await page.evaluate(() => window.canopyView.state.selectedT);
      // The nearest line (the earlier on a tie), the first of several at its time.
      const nearest = times.reduce((best, t) => (Math.abs(t - pinned) < Math.abs(best - pinned) ? t : best));
      const expected = times.indexOf(nearest);
      await page.waitForFunction((line) => window.canopyView.events.markedLine === line, expected);
      const marked = page.locator('[data-testid="event-row"].marked');
      await marked.waitFor();
      assert.equal(await marked.locator('.line').textContent(), lineText(expected));
      assert.equal(Number(await marked.getAttribute('data-index')), expected);
      const [box, view] = [await marked.boundingBox(), await list.boundingBox()];
      assert.ok(box.y >= view.y - 1 && box.y + box.height <= view.y + view.height + 1, 'the marked line is in view');
      scrolls.push(await list.evaluate((el) => el.scrollTop));
      await page.keyboard.press('Escape');
    }
    assert.ok(scrolls[0] > scrolls[1], `the pane scrolled (scrollTop ${scrolls})`);
    await screenshot(page, suite.env, 'events-pinned');
    assert.deepEqual(errors, []);
  });

  test('the mark is drawn on the chart with its text', async () => {
    const { page, errors } = await open();
    const [mark] = (await (await fetch(`${suite.server.url}api/events?kinds=mark`)).json()).events;
    assert.equal(mark.text, 'phase 2');
    const flags = await page.evaluate(() => window.canopyView.marks);
    const drawn = flags.filter((f) => f.kind === 'mark');
    assert.equal(drawn.length, 1);
    assert.equal(drawn[0].t, mark.t);
    assert.equal(drawn[0].label, 'phase 2');
    // No tick per log line: the chart's flags are the mark alone (no signals here).
    assert.equal(flags.length, 1);
    // The label's tag is filled with the marker colour, at the top of the plot (its
    // first pixel row: the text's antialiased edges start lower).
    const pixel = await page.evaluate((x) => {
      const u = window.canopyView.chart;
      const ratio = devicePixelRatio || 1;
      return [...u.ctx.getImageData(Math.round(u.bbox.left + (x + 2) * ratio), Math.round(u.bbox.top + ratio), 1, 1).data];
    }, drawn[0].x);
    assert.deepEqual(pixel, [0x82, 0x50, 0xdf, 255]);
    assert.deepEqual(errors, []);
  });

  test('the report embeds 50,000 of the lines and says so, offline', async () => {
    const html = path.join(suite.dir, 'logs.html');
    execFileSync(suite.env.bin, ['report', suite.rec.file, '--html', html], { stdio: ['ignore', 'ignore', 'ignore'] });
    const { page, errors, requests, url } = await openReportOffline(suite.browser, html);
    const all = Object.values(suite.recording.event_kinds).reduce((n, c) => n + c, 0);
    const note = page.locator('[data-testid="events-note"]');
    assert.equal(await note.textContent(),
      `showing 50,000 of ${all.toLocaleString('en-US')} events — open the recording with canopy view for all`);
    // Every few kind whole, the log thinned: the pane lists the embedded lines.
    const { total: shown } = await page.evaluate(() => window.canopyView.events);
    const few = total - kLines;
    assert.ok(shown > few + 40000 && shown < few + 50000, `${shown} lines listed`);
    const logChip = await page.locator('[data-testid="event-kind"][data-kind="log"] .count').textContent();
    assert.ok(logChip.endsWith('*'), logChip);
    const flags = await page.evaluate(() => window.canopyView.marks);
    assert.deepEqual(flags.map((f) => [f.kind, f.label]), [['mark', 'phase 2']]);
    const list = page.locator('[data-testid="event-rows"]');
    await list.evaluate((el) => {
      el.scrollTop = el.scrollHeight;
    });
    await row(page, shown - 1).waitFor();
    await screenshot(page, suite.env, 'events-report');
    assert.deepEqual(requests, [url], 'the report requested nothing but itself');
    assert.deepEqual(errors, []);
  });
});
