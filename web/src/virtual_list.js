// A list that renders only the rows in view, with one fixed row height, so that the
// events pane can hold a million lines and the tree thousands of processes.
//
// Browsers cap an element's height (Chromium about 33.5 million px, Firefox about 17.9
// million), so past kMaxContentPx the scroll range is scaled: the scrollbar moves over a
// shorter content and rows are placed relative to the scroll position. The maths is pure
// and exported for tests; the class below only applies it to the DOM.

export const kMaxContentPx = 8000000;

// scrollTop -> the pixel of the full (unscaled) list at the top of the viewport.
export function listTopPx(scrollTop, viewportHeight, rowHeight, count) {
  const fullHeight = count * rowHeight;
  if (fullHeight <= kMaxContentPx) return scrollTop;
  const maxScroll = kMaxContentPx - viewportHeight;
  const fullMaxScroll = fullHeight - viewportHeight;
  return maxScroll > 0 ? (scrollTop / maxScroll) * fullMaxScroll : 0;
}

export function contentHeight(rowHeight, count) {
  return Math.min(count * rowHeight, kMaxContentPx);
}

// The rows to render: [first, last] inclusive, with `overscan` extra rows each side.
export function visibleRange(scrollTop, viewportHeight, rowHeight, count, overscan = 4) {
  if (count === 0) return { first: 0, last: -1, topPx: 0 };
  const topPx = listTopPx(scrollTop, viewportHeight, rowHeight, count);
  const first = Math.max(0, Math.floor(topPx / rowHeight) - overscan);
  const last = Math.min(count - 1, Math.ceil((topPx + viewportHeight) / rowHeight) - 1 + overscan);
  return { first, last, topPx };
}

// Where row `index` sits in the scrolled content, in px from the content's top.
export function rowOffsetPx(index, scrollTop, topPx, rowHeight) {
  return scrollTop + index * rowHeight - topPx;
}

// The scrollTop that shows row `index` in the middle of the viewport (clamped).
export function scrollTopForRow(index, viewportHeight, rowHeight, count) {
  const fullHeight = count * rowHeight;
  const fullMaxScroll = Math.max(0, fullHeight - viewportHeight);
  const wantedTopPx = Math.min(Math.max(index * rowHeight - (viewportHeight - rowHeight) / 2, 0), fullMaxScroll);
  if (fullHeight <= kMaxContentPx) return wantedTopPx;
  const maxScroll = kMaxContentPx - viewportHeight;
  return fullMaxScroll > 0 ? (wantedTopPx / fullMaxScroll) * maxScroll : 0;
}

// Whether row `index` is entirely inside the viewport.
export function isRowVisible(index, scrollTop, viewportHeight, rowHeight, count) {
  const topPx = listTopPx(scrollTop, viewportHeight, rowHeight, count);
  return index * rowHeight >= topPx && (index + 1) * rowHeight <= topPx + viewportHeight;
}

export class VirtualList {
  // renderRow(index, element) fills a recycled row element; it must set everything it
  // uses (text, classes, data attributes), as the element held another row before.
  // onRange(first, last), when given, learns the rows about to be drawn (before them),
  // so that a list whose rows come from afar can fetch them.
  constructor(viewport, { rowHeight, renderRow, className = 'vrow', onRange = null }) {
    this.viewport = viewport;
    this.rowHeight = rowHeight;
    this.renderRow = renderRow;
    this.onRange = onRange;
    this.className = className;
    this.count = 0;
    this.spacer = document.createElement('div');
    this.spacer.className = 'vspacer';
    this.viewport.append(this.spacer);
    this.pool = [];
    this.viewport.addEventListener('scroll', () => this.render(), { passive: true });
    new ResizeObserver(() => this.render()).observe(this.viewport);
  }

  setCount(count) {
    this.count = count;
    this.spacer.style.height = `${contentHeight(this.rowHeight, count)}px`;
    this.render();
  }

  render() {
    const scrollTop = this.viewport.scrollTop;
    const height = this.viewport.clientHeight;
    const { first, last, topPx } = visibleRange(scrollTop, height, this.rowHeight, this.count);
    const needed = Math.max(0, last - first + 1);
    if (this.onRange) this.onRange(first, last);
    while (this.pool.length < needed) this.pool.push(this.newRow());
    for (let k = 0; k < this.pool.length; k++) {
      const row = this.pool[k];
      if (k >= needed) {
        row.hidden = true;
        continue;
      }
      const index = first + k;
      row.hidden = false;
      row.style.transform = `translateY(${rowOffsetPx(index, scrollTop, topPx, this.rowHeight)}px)`;
      this.renderRow(index, row);
    }
  }

  newRow() {
    const row = document.createElement('div');
    row.className = this.className;
    row.style.height = `${this.rowHeight}px`;
    this.viewport.append(row);
    return row;
  }

  // Brings row `index` into view (centred) unless it is already fully visible.
  reveal(index) {
    if (index < 0 || index >= this.count) return;
    const height = this.viewport.clientHeight;
    if (isRowVisible(index, this.viewport.scrollTop, height, this.rowHeight, this.count)) return;
    this.viewport.scrollTop = scrollTopForRow(index, height, this.rowHeight, this.count);
    this.render();
  }
}
