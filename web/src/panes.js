// Resizable panes: a splitter between the two columns (chart and tree on the left, the
// information panel and events on the right) and one between the two rows, dragged with
// the pointer or moved with the arrow keys when focused; a double-click puts the
// default layout back. The shares are kept in localStorage, so a page opened later (or
// another recording) opens with them.
//
// The splitters sit over the grid's gaps, positioned from the panels' boxes, so that
// the grid itself (and its one-column layout on narrow screens, where they hide) stays
// as style.css draws it; a chosen layout only changes the grid's two track templates.

export const kLayoutKey = 'canopy.layout';
const kStep = 0.02; // an arrow key moves a splitter by 2% of the layout
const kWideQuery = '(min-width: 1101px)'; // style.css's two-column layout

// The left column's and the top row's shares, each within [min, max]; null for the
// default (style.css). Anything else stored (older, another page's, edited) is ignored.
export const kShareBounds = { column: [0.25, 0.8], row: [0.2, 0.8] };

export function clampShare(axis, share) {
  const [min, max] = kShareBounds[axis];
  return Math.min(max, Math.max(min, share));
}

export function parseLayout(text) {
  let stored;
  try {
    stored = JSON.parse(text);
  } catch {
    return { column: null, row: null };
  }
  const share = (axis) => {
    const v = stored && stored[axis];
    return typeof v === 'number' && Number.isFinite(v) ? clampShare(axis, v) : null;
  };
  return { column: share('column'), row: share('row') };
}

// The grid's track templates for chosen shares; null keeps style.css's.
export function trackTemplates(layout) {
  const fr = (v) => `${Math.round(v * 1000) / 1000}fr`;
  return {
    columns: layout.column == null ? null : `minmax(0, ${fr(layout.column)}) minmax(0, ${fr(1 - layout.column)})`,
    rows: layout.row == null ? null : `minmax(0, ${fr(layout.row)}) minmax(0, ${fr(1 - layout.row)})`,
  };
}

export class Panes {
  // onResize: called after a splitter moved (the panels' own observers redraw them).
  constructor(root, { storage = window.localStorage, onResize = () => {} } = {}) {
    this.root = root;
    this.storage = storage;
    this.onResize = onResize;
    this.layout = parseLayout(this.read());
    this.wide = window.matchMedia(kWideQuery);
    this.splitters = {
      column: this.makeSplitter('column', 'vertical', 'drag to resize the columns; arrow keys move it; double-click resets'),
      row: this.makeSplitter('row', 'horizontal', 'drag to resize the rows; arrow keys move it; double-click resets'),
    };
    this.apply();
    this.wide.addEventListener('change', () => this.apply());
    new ResizeObserver(() => this.place()).observe(root);
  }

  read() {
    try {
      return this.storage.getItem(kLayoutKey);
    } catch {
      return null; // storage refused (a file:// page in some browsers, private modes)
    }
  }

  save() {
    try {
      if (this.layout.column == null && this.layout.row == null) this.storage.removeItem(kLayoutKey);
      else this.storage.setItem(kLayoutKey, JSON.stringify(this.layout));
    } catch {
      // kept for this page only
    }
  }

  makeSplitter(axis, orientation, title) {
    const bar = document.createElement('div');
    bar.className = `pane-splitter pane-splitter-${axis}`;
    bar.dataset.testid = `splitter-${axis}`;
    bar.setAttribute('role', 'separator');
    bar.setAttribute('aria-orientation', orientation);
    bar.setAttribute('aria-label', axis === 'column' ? 'resize the columns' : 'resize the rows');
    bar.tabIndex = 0;
    bar.title = title;
    bar.addEventListener('pointerdown', (e) => this.drag(axis, e));
    bar.addEventListener('dblclick', () => this.set(axis, null));
    bar.addEventListener('keydown', (e) => {
      const back = axis === 'column' ? 'ArrowLeft' : 'ArrowUp';
      const forward = axis === 'column' ? 'ArrowRight' : 'ArrowDown';
      if (e.key !== back && e.key !== forward) return;
      e.preventDefault();
      e.stopPropagation(); // the page's arrow keys pan the chart
      this.set(axis, this.share(axis) + (e.key === forward ? kStep : -kStep));
    });
    this.root.append(bar);
    return bar;
  }

  // The left column's (or top row's) share of the layout as drawn now.
  share(axis) {
    const [first, second] = this.panels(axis);
    const a = first.getBoundingClientRect();
    const b = second.getBoundingClientRect();
    return axis === 'column' ? a.width / (a.width + b.width) : a.height / (a.height + b.height);
  }

  // The panels either side of a splitter: the chart's and the one across from it.
  panels(axis) {
    const chart = this.root.querySelector('.chart-panel');
    return [chart, this.root.querySelector(axis === 'column' ? '.info-panel' : '.tree-panel')];
  }

  drag(axis, down) {
    if (down.button !== 0) return;
    down.preventDefault();
    const bar = this.splitters[axis];
    bar.setPointerCapture(down.pointerId);
    bar.classList.add('dragging');
    const [first, second] = this.panels(axis);
    const a = first.getBoundingClientRect();
    const b = second.getBoundingClientRect();
    const start = axis === 'column' ? a.left : a.top;
    const span = axis === 'column' ? b.right - a.left : b.bottom - a.top;
    const gap = axis === 'column' ? b.left - a.right : b.top - a.bottom;
    const move = (e) => {
      const at = (axis === 'column' ? e.clientX : e.clientY) - start - gap / 2;
      this.set(axis, at / (span - gap));
    };
    const up = () => {
      bar.classList.remove('dragging');
      bar.removeEventListener('pointermove', move);
      bar.removeEventListener('pointerup', up);
      bar.removeEventListener('pointercancel', up);
    };
    bar.addEventListener('pointermove', move);
    bar.addEventListener('pointerup', up);
    bar.addEventListener('pointercancel', up);
  }

  set(axis, share) {
    this.layout = { ...this.layout, [axis]: share == null ? null : clampShare(axis, share) };
    this.save();
    this.apply();
    this.onResize();
  }

  apply() {
    const wide = this.wide.matches;
    const templates = trackTemplates(this.layout);
    this.root.style.gridTemplateColumns = wide && templates.columns ? templates.columns : '';
    this.root.style.gridTemplateRows = wide && templates.rows ? templates.rows : '';
    for (const bar of Object.values(this.splitters)) bar.hidden = !wide;
    this.place();
  }

  // Over the gaps: the column splitter between the chart and the information panel,
  // full height; the row splitter between the chart and the tree, full width.
  place() {
    if (!this.wide.matches) return;
    const box = this.root.getBoundingClientRect();
    const [chart, info] = this.panels('column');
    const tree = this.root.querySelector('.tree-panel');
    const c = chart.getBoundingClientRect();
    const i = info.getBoundingClientRect();
    const t = tree.getBoundingClientRect();
    const column = this.splitters.column.style;
    column.left = `${(c.right + i.left) / 2 - box.left}px`;
    column.top = `${c.top - box.top}px`;
    column.height = `${t.bottom - c.top}px`;
    const row = this.splitters.row.style;
    row.top = `${(c.bottom + t.top) / 2 - box.top}px`;
    row.left = `${c.left - box.left}px`;
    row.width = `${i.right - c.left}px`;
  }
}
