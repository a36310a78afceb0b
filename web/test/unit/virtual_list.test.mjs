import assert from 'node:assert/strict';
import { test } from 'node:test';
import { contentHeight, isRowVisible, kMaxContentPx, listTopPx, rowOffsetPx, scrollTopForRow, visibleRange } from '../../src/virtual_list.js';

test('a short list scrolls 1:1', () => {
  // 100 rows of 20 px in a 200 px viewport: 2000 px of content.
  assert.equal(contentHeight(20, 100), 2000);
  assert.deepEqual(visibleRange(0, 200, 20, 100), { first: 0, last: 13, topPx: 0 }); // rows 0..9 + 4 overscan
  assert.deepEqual(visibleRange(500, 200, 20, 100), { first: 21, last: 38, topPx: 500 }); // rows 25..34 ± 4
  assert.deepEqual(visibleRange(1800, 200, 20, 100, 0), { first: 90, last: 99, topPx: 1800 });
  assert.deepEqual(visibleRange(0, 200, 20, 0), { first: 0, last: -1, topPx: 0 });
  assert.equal(rowOffsetPx(30, 500, 500, 20), 600);
});

test('scrollTopForRow centres a row, clamped to the ends', () => {
  assert.equal(scrollTopForRow(50, 200, 20, 100), 910); // 50*20 - (200-20)/2
  assert.equal(scrollTopForRow(2, 200, 20, 100), 0);
  assert.equal(scrollTopForRow(99, 200, 20, 100), 1800);
  assert.equal(isRowVisible(50, 910, 200, 20, 100), true);
  assert.equal(isRowVisible(40, 910, 200, 20, 100), false);
  assert.equal(isRowVisible(55, 910, 200, 20, 100), false); // 1100..1120 ends below 1110
});

test('a million rows are scaled into the browser height limit', () => {
  const count = 1000000;
  const rowHeight = 20;
  const viewport = 400;
  // 20,000,000 px of rows over 8,000,000 px of content: the scrollbar moves 7,999,600 px
  // for 19,999,600 px of list.
  assert.equal(contentHeight(rowHeight, count), kMaxContentPx);
  assert.equal(kMaxContentPx, 8000000);
  assert.equal(listTopPx(7999600, viewport, rowHeight, count), 19999600);
  assert.deepEqual(visibleRange(7999600, viewport, rowHeight, count), { first: 999976, last: 999999, topPx: 19999600 });
  const half = visibleRange(3999800, viewport, rowHeight, count);
  assert.equal(half.topPx, 9999800);
  assert.equal(half.first, 499986); // 9999800 / 20 = 499990, less 4 overscan
  // The first row in view is drawn at the top of the viewport.
  assert.equal(rowOffsetPx(499990, 3999800, half.topPx, rowHeight), 3999800);
  assert.equal(scrollTopForRow(999999, viewport, rowHeight, count), 7999600);
  assert.equal(scrollTopForRow(499990, viewport, rowHeight, count), (9999610 / 19999600) * 7999600);
});
