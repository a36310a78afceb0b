import assert from 'node:assert/strict';
import { test } from 'node:test';
import { clampShare, kShareBounds, parseLayout, trackTemplates } from '../../src/panes.js';

test('a stored layout is read back within bounds, anything else is the default', () => {
  assert.deepEqual(parseLayout('{"column":0.5,"row":0.3}'), { column: 0.5, row: 0.3 });
  assert.deepEqual(parseLayout('{"column":0.99,"row":0.01}'), { column: kShareBounds.column[1], row: kShareBounds.row[0] });
  assert.deepEqual(parseLayout('{"column":0.5}'), { column: 0.5, row: null });
  for (const text of [null, '', 'not json', '[]', '{"column":"0.5"}', '{"column":null}', '7']) {
    const layout = parseLayout(text);
    assert.equal(layout.column, null, String(text));
  }
});

test('shares are clamped so no panel can be dragged away', () => {
  assert.equal(clampShare('column', 0), kShareBounds.column[0]);
  assert.equal(clampShare('column', 2), kShareBounds.column[1]);
  assert.equal(clampShare('row', 0.5), 0.5);
});

test('the grid templates split the layout by the shares, or keep the stylesheet’s', () => {
  assert.deepEqual(trackTemplates({ column: null, row: null }), { columns: null, rows: null });
  assert.deepEqual(trackTemplates({ column: 0.6, row: 0.25 }), {
    columns: 'minmax(0, 0.6fr) minmax(0, 0.4fr)',
    rows: 'minmax(0, 0.25fr) minmax(0, 0.75fr)',
  });
});
