// The heap flame graphs in a real Chromium, on a real recording of the heap workload
// (tests/workload/heap_workload.cpp: leak sites A and B leak a quarter of their blocks
// in each of four rounds 250 ms apart, then the process forks and execs a child that
// leaks at site C) made with --heap. The in-use flame graph at a pinned time must hold
// what `canopy heap --pid P --from 0ms --to T` says the process held then; the diff
// between two pinned times must show the leak sites as grown, by what `canopy heap
// --from A --to B` says they grew.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import {
  clickChartAt, openReportOffline, paneShot, profileEnvironment, servingSuite, treeViewSuite, waitReady, watchErrors,
} from './harness.mjs';
import { formatElapsed } from '../../src/format.js';

const kSampleRateBytes = 4096; // as the heap integration tests record (tests/integration/heap_sites.h)

// `canopy heap --json` growth of one PID from fromOffset to toOffset (ms from the start).
function growthOf(env, file, pid, fromOffset, toOffset) {
  const args = ['heap', file, '--json', '--top', '1000000', '--frames', '1000', '--pid', String(pid),
    '--from', `${fromOffset}ms`, '--to', `${toOffset}ms`];
  return JSON.parse(execFileSync(env.bin, args).toString()).growth[0];
}

// Pins the chart at the last drawn tick at or before tMs, clicking above the bands (the
// tree's total there is below the chart's peak), and returns the tick pinned. A click
// on a tick's pixel may pin a later tick drawn within a pixel of it instead (chart.js,
// stepIndexAt, whose pixel of slack adds to the click's rounding): the recording's last
// tick can come a millisecond after the one before it.
async function pinAt(page, tMs) {
  const t = await page.evaluate((to) => window.canopyView.frame.t.filter((x) => x <= to).pop(), tMs);
  assert.ok(t != null, `a tick by ${tMs}`);
  await page.evaluate(() => window.scrollTo(0, 0));
  const before = await page.evaluate(() => window.canopyView.state.selectedT);
  await clickChartAt(page, t, 0.02);
  await page.waitForFunction((previous) => {
    const pinned = window.canopyView.state.selectedT;
    return pinned != null && pinned !== previous;
  }, before);
  const { pinned, msPerPixel } = await page.evaluate(() => {
    const u = window.canopyView.chart;
    return { pinned: window.canopyView.state.selectedT, msPerPixel: (u.posToVal(1, 'x') - u.posToVal(0, 'x')) * 1000 };
  });
  assert.ok(pinned >= t && pinned - t <= 2 * msPerPixel, `pinned ${pinned}, within two pixels (${msPerPixel} ms each) after ${t}`);
  return pinned;
}

// The checks both pages share: pin a base and a later time, highlight the parent, and
// compare both flame graphs with canopy heap.
async function checkHeapPanes(page, env, rec, name) {
  const recording = await page.evaluate(() => ({
    start: window.canopyView.startMs, heap: window.canopyView.profiles.heapInfo, processes: window.canopyView.processes,
  }));
  assert.equal(await page.locator('[data-testid="cpu-panel"]').isHidden(), true, 'no CPU pane without a CPU profile');
  const parent = recording.processes.find((p) => p.cmdline[1] === 'parent');
  const snapshots = recording.heap.snapshots[String(parent.id)];
  assert.ok(snapshots && snapshots.length >= 4, 'the parent has snapshots');

  // Base: the parent's first heap snapshot (the first tick, if the snapshot came before
  // any), before most of its leak rounds whatever the machine's speed; then its last.
  const firstTick = await page.evaluate(() => window.canopyView.frame.t[0]);
  const base = await pinAt(page, Math.max(snapshots[0], firstTick));
  await page.click('[data-testid="heap-base"]');
  const pinned = await pinAt(page, snapshots[snapshots.length - 1]);
  if (await page.evaluate(() => window.canopyView.state.highlighted)) await page.click('[data-testid="clear-highlight"]');
  await page.locator(`[data-testid="tree-node"][data-id="${parent.id}"]`).click();
  await page.waitForFunction(() => {
    const p = window.canopyView.profiles;
    return p.heap && p.diff && p.heapFlame.root === p.heap.total && p.diffFlame.root === p.diff.grown;
  });
  const shown = await page.evaluate(() => window.canopyView.profiles);
  assert.equal(shown.heap.process, parent.id);
  assert.equal(shown.baseT, base);

  // In use at the pinned time: canopy heap's figures for the same moment.
  const held = growthOf(env, rec.file, parent.pid, 0, pinned - recording.start);
  assert.equal(shown.heap.snapshotT, held.to_ms, 'the same snapshot');
  const cliHeld = held.stacks.reduce((sum, s) => sum + s.to_bytes, 0) + held.other_bytes;
  assert.equal(shown.heap.total, cliHeld, 'the root holds what canopy heap says was in use');
  assert.ok(cliHeld > 0);
  // The high-water estimate, where the snapshots by then miss it, in the pane's note.
  const note = await page.locator('[data-testid="heap-note"]').textContent();
  assert.equal(note.includes('between snapshots'), shown.heap.highWater != null, note);

  // What grew from the base to the pinned time: the leak sites, by canopy heap's figures.
  const grew = growthOf(env, rec.file, parent.pid, base - recording.start, pinned - recording.start);
  const cliGrown = grew.stacks.reduce((sum, s) => sum + s.growth_bytes, 0) + grew.other_bytes;
  assert.equal(shown.diff.grown, cliGrown);
  const leakGrowth = (name) => grew.stacks.filter((s) => s.frames.some((f) => f.function.endsWith(name)))
    .reduce((sum, s) => sum + s.growth_bytes, 0);
  for (const site of ['leak_site_a', 'leak_site_b']) {
    const box = page.locator(`[data-testid="heap-diff"] .flame-box[data-name$="${site}"]`);
    assert.equal(await box.count(), 1, `${site} is drawn in the diff`);
    assert.equal(Number(await box.getAttribute('data-v')), leakGrowth(site), `${site} grew by canopy heap's figure`);
    assert.ok(leakGrowth(site) > 0);
  }
  await paneShot(page, env, `${name}-heap-panes`);
}

describe('heap profile panes', () => {
  const suite = treeViewSuite('canopy-heap-', {
    name: 'heap',
    recordArgs: [`--heap=${kSampleRateBytes}`, '--heap-interval', '100ms'],
    command: () => {
      const { heapWorkload, heapWorkloadNoFp } = profileEnvironment();
      return [heapWorkload, 'parent', heapWorkloadNoFp];
    },
  });

  test('canopy view: the in-use heap at a pinned time and what grew since a base time', async () => {
    const page = await (await suite.browser.newContext({ viewport: { width: 1600, height: 1000 } })).newPage();
    const errors = watchErrors(page);
    await page.goto(suite.server.url);
    await waitReady(page);
    await checkHeapPanes(page, suite.env, suite.rec, 'view');
    assert.deepEqual(errors, []);
  });

  test('canopy view: the header leads to the panes, which take the width; a deep graph scrolls in its pane',
    async () => {
      // 60vh (profiles.css) of 240 px is 144 px: 8 rows of 18 px, where the parent's
      // stacks run 11 frames deep (all, _start, libc's two, main, ..., leak_site_a, malloc).
      const page = await (await suite.browser.newContext({ viewport: { width: 1600, height: 240 } })).newPage();
      const errors = watchErrors(page);
      await page.goto(suite.server.url);
      await waitReady(page);
      const link = page.locator('[data-testid="profiles-link"]');
      assert.equal(await link.textContent(), 'heap ↓');
      const panesTop = () => page.evaluate(() => document.querySelector('[data-testid="profiles"]').getBoundingClientRect().top);
      assert.ok(await panesTop() >= 240, 'the panes start below the first screen');
      await link.click();
      await page.waitForFunction(() => document.querySelector('[data-testid="profiles"]').getBoundingClientRect().top < 1);
      const widths = await page.evaluate(() => ['profiles', 'heap-panel']
        .map((id) => document.querySelector(`[data-testid="${id}"]`).getBoundingClientRect().width));
      assert.ok(widths[1] >= widths[0] - 16, `without a CPU profile the heap panel takes the width: ${widths}`);

      const parent = await page.evaluate(() => window.canopyView.processes.find((p) => p.cmdline[1] === 'parent'));
      const last = await page.evaluate((id) => window.canopyView.profiles.heapInfo.snapshots[String(id)].at(-1), parent.id);
      await pinAt(page, last);
      await page.locator(`[data-testid="tree-node"][data-id="${parent.id}"]`).click();
      await page.waitForFunction(() => {
        const p = window.canopyView.profiles;
        return p.heap && p.heapFlame.root === p.heap.total && p.heap.total > 0;
      });
      const pane = await page.evaluate(() => {
        const scroll = document.querySelector('[data-testid="heap-flame-scroll"]');
        return { client: scroll.clientHeight, content: scroll.scrollHeight, window: window.innerHeight };
      });
      assert.ok(pane.client <= Math.ceil(0.6 * pane.window), `the graph's pane: ${JSON.stringify(pane)}`);
      assert.ok(pane.content > pane.client, `the graph is deeper than its pane: ${JSON.stringify(pane)}`);
      // The deepest frame is reached by scrolling the pane, and zooms as any other.
      // (the widest of the deepest row, so that the click lands on it and not on a sliver).
      const deepest = await page.evaluate(() => {
        const boxes = [...document.querySelectorAll('[data-testid="heap-flame"] .flame-box')];
        const depth = Math.max(...boxes.map((box) => Number(box.dataset.depth)));
        const row = boxes.filter((box) => Number(box.dataset.depth) === depth);
        const widest = row.reduce((a, b) => (b.offsetWidth > a.offsetWidth ? b : a));
        return { depth, path: widest.dataset.path, name: widest.dataset.name };
      });
      assert.ok((deepest.depth + 1) * 18 > pane.client, `the deepest frame (${deepest.depth}) is below the pane's first view`);
      const name = deepest.name;
      await page.locator(`[data-testid="heap-flame"] .flame-box[data-path="${deepest.path}"]`).click();
      await page.waitForFunction((n) => window.canopyView.profiles.heapFlame.focus === n, name);
      assert.ok(await page.evaluate(() => document.querySelector('[data-testid="heap-flame-scroll"]').scrollTop) > 0);
      assert.deepEqual(errors, []);
    });

  test('report --html: the same panes from the embedded heap profile, offline', async () => {
    const html = path.join(suite.dir, 'heap.html');
    execFileSync(suite.env.bin, ['report', suite.rec.file, '--html', html]);
    const { page, errors, requests, url } = await openReportOffline(suite.browser, html);
    await checkHeapPanes(page, suite.env, suite.rec, 'report');
    assert.deepEqual(requests, [url], 'the report requested nothing but itself');
    assert.deepEqual(errors, []);
  });
});

// `canopy_workload hold 20 800` maps its memory itself: the heap profiler sees no new
// high and sends its one snapshot at exit, after every tick that saw the process alive.
describe('heap pane before the first snapshot', () => {
  const suite = treeViewSuite('canopy-heap-first-', {
    name: 'hold', recordArgs: ['--heap'], command: (env) => [env.workload, 'hold', '20', '800'],
  });

  test('canopy view: a time before the first snapshot says when it comes, and asks nothing', async () => {
    const page = await (await suite.browser.newContext({ viewport: { width: 1600, height: 1000 } })).newPage();
    const errors = watchErrors(page);
    await page.goto(suite.server.url);
    await waitReady(page);
    const { first, start, tick } = await page.evaluate(() => ({
      first: Object.values(window.canopyView.profiles.heapInfo.snapshots)[0][0],
      start: window.canopyView.startMs,
      tick: window.canopyView.frame.t[0],
    }));
    assert.ok(tick < first, `the first tick (${tick}) comes before the exit snapshot (${first})`);
    await pinAt(page, tick);
    const expected = `no heap snapshot yet: its first is at +${formatElapsed(first - start, 3)}`;
    await page.waitForFunction((text) => document.querySelector('[data-testid="heap-note"]').textContent === text,
      expected);
    assert.deepEqual(errors, [], 'no request that can only fail (a 404 in the console)');
  });
});

// A live page opened before any heap snapshot: `allocate-on-signal` allocates nothing the
// profiler samples (one sample per 512 KiB) until SIGUSR1, and with --heap-interval 60s
// its first snapshot is the one its new high sends then.
describe('canopy record --serve --heap: the panes come with the first snapshot', () => {
  const pidOf = (dir) => Number(fs.existsSync(path.join(dir, 'pid')) ? fs.readFileSync(path.join(dir, 'pid'), 'utf8') : 0);
  const suite = servingSuite('canopy-heap-live-', ({ dir, serving }) => {
    if (serving && serving.child.exitCode == null && pidOf(dir)) process.kill(pidOf(dir), 'SIGTERM');
  });

  test('a page that had no heap profile to show shows it once a snapshot comes', async () => {
    const command = ['sh', '-c', 'echo $$ > "$D/pid"; exec "$W" allocate-on-signal 16'];
    const { page, errors } = await suite.serve({
      name: 'live-heap', recordArgs: ['--heap', '--heap-interval', '60s'], command, viewport: { width: 1600, height: 1000 },
    });
    const { dir, serving } = suite;
    while (!pidOf(dir)) await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(await page.locator('[data-testid="profiles"]').isHidden(), true, 'no snapshot yet, no pane');
    process.kill(pidOf(dir), 'SIGUSR1');
    await page.locator('[data-testid="heap-panel"]').waitFor({ timeout: 60000 });
    assert.equal(await page.locator('[data-testid="profiles-link"]').textContent(), 'heap ↓');
    // The one profiled process is the pane's: it asks for a time, not for a process.
    await page.waitForFunction(() => document.querySelector('[data-testid="heap-note"]').textContent
      === 'Pin a time on the chart to see what the heap held then.', null, { timeout: 60000 });
    process.kill(pidOf(dir), 'SIGTERM');
    await page.locator('[data-testid="ended-badge"]').waitFor({ timeout: 60000 });
    // Before Ctrl-C, as live.test.mjs checks: the page may still be loading what the last
    // update brought when the server exits, and that request then fails
    // (ERR_EMPTY_RESPONSE, once in CI): the test stopping the server, not the page.
    assert.deepEqual(errors, []);
    serving.child.kill('SIGINT');
    assert.deepEqual(await serving.exited, { code: 0, signal: null }, serving.output());
  });
});

// A process the heap profiler could not load into (env -i cleared its environment),
// beside one it profiled: highlighted, the heap pane says why it has no profile, in the
// words of canopy heap.
describe('heap pane of a process without a heap profile', () => {
  const suite = treeViewSuite('canopy-heap-unprofiled-', {
    name: 'unprofiled', recordArgs: ['--heap'], command: ['sh', '-c', '"$W" hold 10 400 & exec env -i "$W" hold 10 800'],
  });

  test('canopy view: highlighting it says why', async () => {
    const page = await (await suite.browser.newContext({ viewport: { width: 1600, height: 1000 } })).newPage();
    const errors = watchErrors(page);
    await page.goto(suite.server.url);
    await waitReady(page);
    const { processes, heap } = await page.evaluate(() => ({
      processes: window.canopyView.processes, heap: window.canopyView.profiles.heapInfo,
    }));
    const cleared = processes.find((p) => p.cmdline.join(' ').endsWith('hold 10 800'));
    const why = heap.unprofiled[String(cleared.id)];
    assert.equal(why.reason, 'environment');
    const listed = execFileSync(suite.env.bin, ['heap', suite.rec.file]).toString();
    assert.ok(listed.includes(`  environment (1): ${why.meaning}\n`), listed);

    await page.locator(`[data-testid="tree-node"][data-id="${cleared.id}"]`).click();
    const expected = `${cleared.name} ${cleared.pid} has no heap profile: ${why.meaning} (environment)`;
    await page.waitForFunction((text) => document.querySelector('[data-testid="heap-note"]').textContent === text,
      expected);
    assert.deepEqual(errors, []);
  });
});
