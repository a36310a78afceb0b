// Search by name or command line: typing highlights the matching processes on the chart
// and in the panel, filters the tree to them (with their ancestors), and shows the first;
// Enter zooms the chart to each match in turn; "/" focuses the box, Esc clears it.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { holdChildren, screenshot, treeViewSuite, waitReady, watchErrors } from './harness.mjs';

describe('canopy view: search', () => {
  const suite = treeViewSuite('canopy-search-');

  test('a command-line word highlights, filters and jumps; Esc clears', async () => {
    const page = await (await suite.browser.newContext({ viewport: { width: 1600, height: 1000 } })).newPage();
    const errors = watchErrors(page);
    await page.goto(`${suite.server.url}#group=process`);
    await waitReady(page);
    const rowsBefore = Number(await page.locator('[data-testid="tree-panel"]').getAttribute('data-rows'));

    // The tree's hold children are the processes whose command line says "child".
    const children = [...holdChildren(suite.recording.processes).values()].map((p) => p.id).sort((a, b) => a - b);
    assert.equal(children.length, 3);
    const byId = new Map(suite.recording.processes.map((p) => [p.id, p]));
    const ancestors = new Set();
    for (const id of children) for (let p = byId.get(byId.get(id).parent); p; p = byId.get(p.parent)) ancestors.add(p.id);

    await page.keyboard.press('/');
    assert.equal(await page.evaluate(() => document.activeElement.dataset.testid), 'search');
    await page.keyboard.type('CHILD');
    // The whole word's search, not one the page ran while it was being typed ("C").
    await page.waitForFunction(() => window.canopyView.state.highlighted?.key === 'q:CHILD');
    const highlighted = await page.evaluate(() => window.canopyView.state.highlighted);
    assert.deepEqual(highlighted.ids, children);
    assert.equal(await page.locator('[data-testid="search-count"]').textContent(), '3 matches');
    // The tree holds the matches and their ancestors only.
    const shown = await page.evaluate(() => [...document.querySelectorAll('[data-testid="tree-node"]:not([hidden])')].map((row) => Number(row.dataset.id)));
    assert.deepEqual(shown.sort((a, b) => a - b), [...children, ...ancestors].sort((a, b) => a - b));
    assert.equal(await page.locator('[data-testid="tree-panel"]').getAttribute('data-filtered'), 'true');
    // The chart lights the bands of the matches.
    const lit = await page.evaluate(() => [...window.canopyView.chartLitKeys()].sort());
    assert.deepEqual(lit, children.map((id) => `p:${id}`).sort());
    await screenshot(page, suite.env, 'search-child');

    // Enter: the chart shows the first match's lifetime; again, the second's.
    for (const [k, id] of children.slice(0, 2).entries()) {
      await page.keyboard.press('Enter');
      await page.waitForFunction((n) => document.querySelector('[data-testid="search-count"]').textContent === `${n} of 3`, k + 1);
      const view = await page.evaluate(() => window.canopyView.state.view);
      const p = byId.get(id);
      assert.ok(view.from <= p.first_ms && view.to >= p.last_ms, `match ${k + 1}: ${JSON.stringify(view)} holds ${p.first_ms}..${p.last_ms}`);
    }

    await page.keyboard.press('Escape');
    await page.waitForFunction(() => window.canopyView.state.highlighted == null);
    assert.equal(await page.locator('[data-testid="search"]').inputValue(), '');
    assert.equal(await page.locator('[data-testid="tree-panel"]').getAttribute('data-filtered'), 'false');
    assert.equal(Number(await page.locator('[data-testid="tree-panel"]').getAttribute('data-rows')), rowsBefore);

    await page.fill('[data-testid="search"]', 'no such process');
    await page.waitForFunction(() => document.querySelector('[data-testid="search-count"]').textContent === 'no match');
    assert.equal(await page.evaluate(() => window.canopyView.state.highlighted), null);
    assert.deepEqual(errors, []);
  });
});
