// A deep process tree in a real Chromium: shells that start shells, 25 levels down to a
// sleep. The tree's indent stops at 16 levels, so that the deepest name is still drawn
// in its column, and a row deeper than that says its level.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { treeViewSuite, waitReady, watchErrors } from './harness.mjs';

const kLevels = 25; // the first shell, 23 shells each started by the one above, a sleep
const kNested = 'if [ "$N" -gt 0 ]; then N=$((N-1)) sh -c "$NEST"; else sleep 0.3; fi';

describe('a deep process tree', () => {
  const suite = treeViewSuite('canopy-deep-', {
    name: 'deep', command: ['sh', '-c', `export NEST='${kNested}'; N=${kLevels - 3} sh -c "$NEST"`],
  });

  test('the deepest name stays in its column and its row says its level', async () => {
    const page = await (await suite.browser.newContext({ viewport: { width: 1600, height: 1000 } })).newPage();
    const errors = watchErrors(page);
    await page.goto(suite.server.url);
    await waitReady(page);
    await page.click('text=Expand all');
    const sleep = await page.evaluate(() => window.canopyView.processes.find((p) => p.name === 'sleep'));
    assert.ok(sleep, 'the sleep at the bottom was recorded');
    await page.evaluate((id) => window.canopyView.revealTreeNode(id), sleep.id);
    const row = page.locator(`[data-testid="tree-node"][data-id="${sleep.id}"]`);
    assert.equal(await row.getAttribute('aria-level'), String(kLevels));
    assert.equal(await row.locator('.level').textContent(), `level ${kLevels}`);
    const box = await row.evaluate((r) => {
      const column = r.querySelector('.c-name').getBoundingClientRect();
      const name = r.querySelector('.name').getBoundingClientRect();
      return { columnRight: column.right, nameLeft: name.left, nameRight: name.right };
    });
    assert.ok(box.nameRight > box.nameLeft && box.nameRight <= box.columnRight, `the name drawn in its column: ${JSON.stringify(box)}`);
    // A row within the indent has no level written.
    await page.evaluate(() => window.canopyView.revealTreeNode(window.canopyView.processes[0].id));
    const first = page.locator('[data-testid="tree-node"][aria-level="1"]');
    assert.equal(await first.count(), 1);
    assert.equal(await first.locator('.level').isHidden(), true);
    assert.deepEqual(errors, []);
  });
});
