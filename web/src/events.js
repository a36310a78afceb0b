// The events pane: the recording's events and the process starts and ends in time
// order, filtered by kind (chips with counts), as a virtual list over pages fetched from
// the source (events_pager.js): a log import can bring ten million lines. Linked both
// ways with the chart: a pinned or hovered time scrolls to the line nearest to it
// (GET /api/events?at=); clicking a line pins its time and shows its whole text below.

import { byTestId, el } from './dom.js';
import { baseName, countOf, firstLine, kHiddenByDefault, kindsParam } from './events_model.js';
import { EventPager } from './events_pager.js';
import { VirtualList } from './virtual_list.js';

const kRowHeight = 20;
const kPageSize = 200;
const kMaxPages = 50; // 10,000 rows in memory at most
const kMaxRowText = 400; // characters of the first line drawn in a row (the title has more)
const kKindOrder = ['exit', 'oom', 'signal', 'mark', 'exec', 'log', 'stdout', 'stderr', 'start', 'end'];
const kKindTips = {
  exit: 'processes that exited with a non-zero status or were killed by a signal',
  end: 'every other process end',
  start: 'every process start',
  exec: 'a process exec-ed a program under a new name',
  signal: 'signals forwarded to the command',
  mark: 'markers set with canopy mark',
  log: 'lines of imported log files (canopy log add)',
  stdout: "the command's output (canopy record --capture-output)",
  stderr: "the command's error output (canopy record --capture-output)",
};

export class EventsPane {
  // options: source, counts (Map kind -> lines), logSources ([{id, name}]), note (null or
  // {shown, total, kinds}), processById, startMs, time() (the page's time format, time_format.js), onLineClick(event), onError(message)
  constructor(root, options) {
    this.root = root;
    this.options = options;
    this.source = options.source;
    this.counts = options.counts;
    this.sourceNames = new Map((options.logSources || []).map((s) => [s.id, baseName(s.name)]));
    this.enabled = new Set([...this.counts.keys()].filter((kind) => !kHiddenByDefault.has(kind)));
    this.markedLine = -1;
    this.markedT = null;
    this.markSequence = 0;
    this.selected = null; // the clicked line: {line, event}
    this.pager = new EventPager({ pageSize: kPageSize, maxPages: kMaxPages, onChange: (change) => this.landed(change) });
    this.list = new VirtualList(byTestId('event-rows', root), {
      rowHeight: kRowHeight,
      className: 'vrow event-row',
      renderRow: (index, row) => this.renderRow(index, row),
      onRange: (first, last) => this.pager.want(first, last),
    });
    this.list.viewport.addEventListener('click', (e) => this.click(e));
    this.list.viewport.addEventListener('keydown', (e) => {
      if (e.key === 'Enter') this.click(e);
    });
    byTestId('event-detail-close', root).addEventListener('click', () => this.select(null));
    this.renderNote(options.note);
    this.renderChips();
    this.applyFilter();
  }

  // Resolves once the first rows in view are in (at once for an empty list).
  firstLoad() {
    return this.pager.total === 0 ? Promise.resolve() : this.pager.load(0).then(() => undefined);
  }

  // For the test hook.
  status() {
    return {
      total: this.pager.total,
      enabled: [...this.enabled].sort(),
      markedLine: this.markedLine,
      selectedLine: this.selected ? this.selected.line : -1,
      fetches: this.pager.fetches,
      pages: this.pager.pages.size,
      inFlight: this.pager.inFlight.size,
    };
  }

  kinds() {
    const known = kKindOrder.filter((kind) => this.counts.has(kind));
    const others = [...this.counts.keys()].filter((kind) => !kKindOrder.includes(kind)).sort();
    return [...known, ...others];
  }

  renderChips() {
    const chips = byTestId('event-kinds', this.root);
    const recorded = this.options.note ? this.options.note.kinds : null;
    chips.replaceChildren(...this.kinds().map((kind) => {
      const count = this.counts.get(kind);
      const all = recorded ? recorded.get(kind) : null;
      const thinned = all != null && all > count;
      const tip = [kKindTips[kind], thinned ? `${count.toLocaleString('en-US')} of ${all.toLocaleString('en-US')} in the recording` : null];
      return el('button', {
        className: `chip kind-${kind.replace(/[^a-z0-9_-]/gi, '')}`,
        'data-kind': kind,
        'data-testid': 'event-kind',
        'aria-pressed': String(this.enabled.has(kind)),
        title: tip.filter(Boolean).join('; ') || null,
        onclick: () => this.toggleKind(kind),
      }, el('span', { text: kind }), el('span', { className: 'count', text: count.toLocaleString('en-US') + (thinned ? '*' : '') }));
    }));
  }

  // The report holds a share of a large recording's lines: say so.
  renderNote(note) {
    const element = byTestId('events-note', this.root);
    element.hidden = !note;
    if (!note) return;
    element.textContent = `showing ${note.shown.toLocaleString('en-US')} of ${note.total.toLocaleString('en-US')} events — ` +
      'open the recording with canopy view for all';
  }

  toggleKind(kind) {
    if (this.enabled.has(kind)) this.enabled.delete(kind);
    else this.enabled.add(kind);
    for (const chip of this.root.querySelectorAll('[data-testid="event-kind"]')) {
      chip.setAttribute('aria-pressed', String(this.enabled.has(chip.dataset.kind)));
    }
    this.applyFilter();
  }

  // Every kind on: no filter (the server's cheapest list).
  kindsQuery() {
    return this.kinds().every((kind) => this.enabled.has(kind)) ? null : kindsParam(this.enabled);
  }

  applyFilter() {
    const kinds = this.kindsQuery();
    this.query = kinds;
    const total = countOf(this.counts, this.enabled);
    this.pager.reset((offset, limit) => this.source.eventsPage(kinds, offset, limit), total);
    this.select(null);
    this.setTotal(total);
    this.list.viewport.scrollTop = 0;
    this.list.setCount(total);
    if (this.markedT != null) this.markTime(this.markedT);
  }

  // A recording followed live (live.js): the lines per kind as they are now. A kind
  // seen for the first time is shown as it would have been at load; the lines already
  // in view stay where they are.
  setCounts(counts) {
    for (const kind of counts.keys()) {
      if (!this.counts.has(kind) && !kHiddenByDefault.has(kind)) this.enabled.add(kind);
    }
    this.counts = counts;
    this.renderChips();
    const total = countOf(this.counts, this.enabled);
    if (total === this.pager.total) return;
    const kinds = this.kindsQuery();
    const fetchPage = (offset, limit) => this.source.eventsPage(kinds, offset, limit);
    // The same filter: the same list grown, whose rows stay on screen until refetched.
    if (kinds === this.query) this.pager.refresh(fetchPage, total);
    else this.pager.reset(fetchPage, total);
    this.query = kinds;
    this.setTotal(total);
    this.list.setCount(total);
    this.list.render();
  }

  setTotal(total) {
    this.root.dataset.lines = String(total);
    byTestId('events-total', this.root).textContent = `${total.toLocaleString('en-US')} ${total === 1 ? 'line' : 'lines'}`;
    const empty = byTestId('events-empty', this.root);
    empty.textContent = 'No events of the selected kinds.';
    empty.hidden = total > 0;
  }

  // A page came in (or failed): redraw; a total the server corrected resizes the list.
  landed({ totalChanged, error }) {
    if (totalChanged) {
      this.setTotal(this.pager.total);
      this.list.setCount(this.pager.total);
    }
    if (error) this.options.onError(`could not load the events: ${error.message}`);
    this.list.render();
  }

  // Marks the line nearest to t and scrolls it into view; null clears the mark.
  // The server finds the line (the page holds only a few of them); the last answer wins.
  markTime(t) {
    this.markedT = t;
    const sequence = ++this.markSequence;
    if (t == null) {
      this.select(null);
      this.setMarked(-1);
      return;
    }
    const current = this.pager.get(this.markedLine);
    if (current && current.t === t) {
      this.setMarked(this.markedLine); // a clicked line keeps its mark among equal times
      return;
    }
    this.select(null);
    const query = this.query;
    this.source.eventIndexAt(query, t).then(({ index, total }) => {
      if (sequence !== this.markSequence || query !== this.query) return;
      this.setMarked(total === 0 ? -1 : Math.min(index, total - 1));
    }, (error) => this.options.onError(`could not find the events at a time: ${error.message}`));
  }

  setMarked(line) {
    this.markedLine = line;
    this.root.dataset.marked = String(line);
    if (line >= 0) this.list.reveal(line);
    this.list.render();
  }

  renderRow(line, row) {
    if (row.childElementCount !== 4) {
      row.replaceChildren(
        el('span', { className: 'c-time' }),
        el('span', { className: 'c-kind' }),
        el('span', { className: 'c-proc' }),
        el('span', { className: 'c-text' }, el('span', { className: 'src-tag' }), el('span', { className: 'line' }), el('span', { className: 'more' })),
      );
    }
    const [time, kind, proc, text] = row.children;
    const [tag, first, more] = text.children;
    const item = this.pager.get(line);
    row.dataset.index = String(line);
    row.classList.toggle('marked', line === this.markedLine);
    row.classList.toggle('selected', this.selected != null && line === this.selected.line);
    if (!item) {
      // A placeholder until its page is in: no kind, no time, nothing to click.
      row.dataset.testid = 'event-placeholder';
      row.classList.add('loading');
      delete row.dataset.t;
      delete row.dataset.kind;
      row.tabIndex = -1;
      for (const cell of [time, kind, proc, tag, more]) cell.textContent = '';
      delete kind.dataset.kind;
      tag.hidden = true;
      more.hidden = true;
      first.textContent = 'loading…';
      text.title = '';
      return;
    }
    row.classList.remove('loading');
    const process = item.process != null ? this.options.processById.get(item.process) : null;
    const who = process ? `${process.name} ${process.pid}` : item.process != null ? `#${item.process}` : '';
    const full = item.text == null ? '' : String(item.text);
    const { line: head, more: extra } = firstLine(full);
    setText(time, this.options.time().at(item.t));
    setText(kind, item.kind);
    kind.dataset.kind = item.kind;
    setText(proc, who);
    const source = item.source != null ? this.sourceNames.get(item.source) || `#${item.source}` : '';
    tag.hidden = !source;
    setText(tag, source);
    setText(first, head.length > kMaxRowText ? `${head.slice(0, kMaxRowText)}…` : head);
    more.hidden = extra === 0;
    setText(more, extra ? `+${extra} ${extra === 1 ? 'line' : 'lines'}` : '');
    text.title = extra > 0 || head.length > 80 ? full.slice(0, 4000) : ''; // the whole text, when cut
    row.dataset.t = String(item.t);
    row.dataset.kind = item.kind;
    row.dataset.testid = 'event-row';
    row.tabIndex = 0;
  }

  click(e) {
    const row = e.target.closest('.event-row');
    if (!row || row.hidden) return;
    const line = Number(row.dataset.index);
    const item = this.pager.get(line);
    if (!item) return;
    this.select({ line, event: item });
    this.setMarked(line);
    this.options.onLineClick(item);
  }

  // A change of the page's clock: the times of the rows and of the detail box.
  refreshTimes() {
    this.list.render();
    if (this.selected) this.select(this.selected);
  }

  // The detail box: the clicked line's whole text (a stack trace, a CMake command).
  select(selected) {
    this.selected = selected;
    const box = byTestId('event-detail', this.root);
    box.hidden = !selected;
    if (!selected) {
      this.list.render();
      return;
    }
    const { event } = selected;
    const process = event.process != null ? this.options.processById.get(event.process) : null;
    const source = event.source != null ? this.sourceNames.get(event.source) : null;
    const facts = [
      this.options.time().at(event.t),
      event.kind,
      process ? `${process.name} ${process.pid}` : null,
      source,
      event.text_bytes != null ? `cut at ${String(event.text).length.toLocaleString('en-US')} of ${event.text_bytes.toLocaleString('en-US')} bytes` : null,
    ];
    byTestId('event-detail-head', this.root).textContent = facts.filter(Boolean).join(' · ');
    byTestId('event-detail-text', this.root).textContent = event.text == null ? '' : String(event.text);
    box.dataset.t = String(event.t);
    this.list.render();
  }
}

function setText(cell, text) {
  if (cell.textContent !== text) cell.textContent = text;
}
