// The events pane: the recording's events and the synthesised process starts/ends in
// time order, filtered by kind (chips with counts), as a virtual list (a log import can
// bring a million lines). Linked both ways with the chart: the selected time marks and
// scrolls to the nearest line; clicking a line pins its time.

import { byTestId, el, fillCells } from './dom.js';
import { formatElapsed } from './format.js';
import { countKinds, filterKinds, kHiddenByDefault, nearestLine } from './events_model.js';
import { VirtualList } from './virtual_list.js';

const kRowHeight = 20;
const kKindOrder = ['exit', 'oom', 'signal', 'mark', 'exec', 'log', 'stdout', 'stderr', 'start', 'end'];
const kKindTips = {
  exit: 'processes that exited with a non-zero status or were killed by a signal',
  end: 'every other process end',
  start: 'every process start',
  exec: 'a process exec-ed a program under a new name',
  signal: 'signals forwarded to the command',
};

export class EventsPane {
  // options: items (merged timeline), processById, startMs, onLineClick(item)
  constructor(root, options) {
    this.root = root;
    this.options = options;
    this.enabled = new Set();
    this.seen = new Set();
    this.markedLine = -1;
    this.markedT = null;
    this.list = new VirtualList(byTestId('event-rows', root), {
      rowHeight: kRowHeight,
      className: 'vrow event-row',
      renderRow: (index, row) => this.renderRow(index, row),
    });
    this.list.viewport.addEventListener('click', (e) => this.click(e));
    this.list.viewport.addEventListener('keydown', (e) => {
      if (e.key === 'Enter') this.click(e);
    });
    this.setItems(options.items);
  }

  // New kinds start shown, except those hidden by default; kinds seen before keep the
  // user's choice.
  setItems(items) {
    this.items = items;
    this.counts = countKinds(items);
    for (const kind of this.counts.keys()) {
      if (!this.seen.has(kind) && !kHiddenByDefault.has(kind)) this.enabled.add(kind);
      this.seen.add(kind);
    }
    this.renderChips();
    this.applyFilter();
  }

  kinds() {
    const known = kKindOrder.filter((kind) => this.counts.has(kind));
    const others = [...this.counts.keys()].filter((kind) => !kKindOrder.includes(kind)).sort();
    return [...known, ...others];
  }

  renderChips() {
    const chips = byTestId('event-kinds', this.root);
    chips.replaceChildren(...this.kinds().map((kind) => el('button', {
      className: `chip kind-${kind.replace(/[^a-z0-9_-]/gi, '')}`,
      'data-kind': kind,
      'data-testid': 'event-kind',
      'aria-pressed': String(this.enabled.has(kind)),
      title: kKindTips[kind] || null,
      onclick: () => this.toggleKind(kind),
    }, el('span', { text: kind }), el('span', { className: 'count', text: this.counts.get(kind).toLocaleString('en-US') }))));
  }

  toggleKind(kind) {
    if (this.enabled.has(kind)) this.enabled.delete(kind);
    else this.enabled.add(kind);
    for (const chip of this.root.querySelectorAll('[data-testid="event-kind"]')) {
      chip.setAttribute('aria-pressed', String(this.enabled.has(chip.dataset.kind)));
    }
    this.applyFilter();
  }

  applyFilter() {
    const { indices, times } = filterKinds(this.items, this.enabled);
    this.indices = indices;
    this.times = times;
    this.list.setCount(indices.length);
    this.root.dataset.lines = String(indices.length);
    byTestId('events-empty', this.root).hidden = indices.length > 0;
    if (this.markedT != null) this.markTime(this.markedT);
  }

  // Marks the line nearest to t and scrolls it into view; null clears the mark.
  markTime(t) {
    this.markedT = t;
    this.markedLine = t == null ? -1 : nearestLine(this.times, t);
    this.root.dataset.marked = String(this.markedLine);
    if (this.markedLine >= 0) this.list.reveal(this.markedLine);
    this.list.render();
  }

  renderRow(line, row) {
    const item = this.items[this.indices[line]];
    const process = item.process != null ? this.options.processById.get(item.process) : null;
    const who = process ? `${process.name} ${process.pid}` : item.process != null ? `#${item.process}` : '';
    const text = item.text == null ? '' : String(item.text);
    fillCells(row, [formatElapsed(item.t - this.options.startMs, 3), item.kind, who, text], ['c-time', 'c-kind', 'c-proc', 'c-text']);
    row.children[1].dataset.kind = item.kind;
    row.children[3].title = text.length > 80 ? text.slice(0, 4000) : ''; // the whole line, when cut
    row.dataset.index = String(line);
    row.dataset.t = String(item.t);
    row.dataset.kind = item.kind;
    row.dataset.testid = 'event-row';
    row.tabIndex = 0;
    row.classList.toggle('marked', line === this.markedLine);
  }

  click(e) {
    const row = e.target.closest('.event-row');
    if (!row || row.hidden) return;
    const item = this.items[this.indices[Number(row.dataset.index)]];
    if (item) this.options.onLineClick(item);
  }
}
