// The events pane's rows, fetched a page at a time: a recording can hold ten million log
// lines, so the page only ever holds the pages around what is in view. Pure logic (no
// DOM), the same for both sources: `fetchPage(offset, limit)` asks the server
// (/api/events) or slices the report's embedded array.
//
// - get(i) is the row, or null while its page is not in: the pane draws a placeholder.
// - want(first, last) names the rows in view; their pages are fetched first, then one
//   page each side. At most `maxInFlight` requests run at once, and a page is only
//   started when it is still wanted, so dragging the scrollbar across a million rows
//   costs the pages it stops at, not every page it passed.
// - At most `maxPages` pages are kept; the least recently used go first, never one in view.
// - reset() starts over for another filter; answers to the old one are dropped.
// - refresh() starts over for the same list grown (a recording followed live): the old
//   pages stay on screen until the new ones replace them, so that rows in view do not
//   blink to placeholders at every update. A row may show what stood at its index a
//   moment ago (a line that came in earlier in time), never for longer than its fetch.

export class EventPager {
  constructor({ fetchPage = null, total = 0, pageSize = 200, maxPages = 50, maxInFlight = 2, onChange = () => {} } = {}) {
    this.pageSize = pageSize;
    this.maxPages = maxPages;
    this.maxInFlight = maxInFlight;
    this.onChange = onChange;
    this.fetches = 0; // pages requested, over the pager's life (for tests)
    this.reset(fetchPage, total);
  }

  // A new list (another kind filter): `total` rows, as far as is known before the first
  // answer (an answer's total replaces it).
  reset(fetchPage, total) {
    this.startOver(fetchPage, total);
    this.stale = new Map(); // page number -> events of an earlier state of the same list
  }

  // The same list, now of `total` rows: every page is fetched again when wanted, and
  // shown as it was until then.
  refresh(fetchPage, total) {
    const shown = new Map([...this.stale, ...this.pages]);
    this.startOver(fetchPage, total);
    for (const page of [...shown.keys()].slice(0, Math.max(0, shown.size - this.maxPages))) shown.delete(page);
    this.stale = shown;
  }

  startOver(fetchPage, total) {
    this.fetchPage = fetchPage;
    this.total = total;
    this.generation = (this.generation || 0) + 1;
    // Whoever waits on the old list gets null.
    for (const waiters of (this.waiters || new Map()).values()) for (const resolve of waiters) resolve();
    this.pages = new Map(); // page number -> events, in least-recently-used order
    this.inFlight = new Map(); // page number -> promise
    this.wanted = [];
    this.waiters = new Map(); // page number -> [resolve]
    this.error = null;
  }

  pageOf(index) {
    return Math.floor(index / this.pageSize);
  }

  get pageCount() {
    return Math.ceil(this.total / this.pageSize);
  }

  // The row at `index` to show: null while neither its page nor an earlier state of it
  // (refresh) is in.
  get(index) {
    return this.rowAt(index, true);
  }

  // Whether the row at `index` is in as the list is now.
  has(index) {
    return this.rowAt(index, false) != null;
  }

  // The row at `index` in the pages fetched for the list as it is, or else, `withStale`,
  // in those kept from an earlier state of it; null when neither has it.
  rowAt(index, withStale) {
    if (index < 0 || index >= this.total) return null;
    const number = this.pageOf(index);
    const page = this.pages.get(number) || (withStale ? this.stale.get(number) : undefined);
    return (page && page[index - number * this.pageSize]) || null;
  }

  // The rows first..last are in view: fetch their pages, then their neighbours.
  want(first, last) {
    if (this.total === 0 || last < first) {
      this.wanted = [];
      return;
    }
    const a = this.pageOf(Math.max(0, first));
    const b = this.pageOf(Math.min(this.total - 1, last));
    const pages = [];
    for (let p = a; p <= b; p++) pages.push(p);
    if (b + 1 < this.pageCount) pages.push(b + 1);
    if (a > 0) pages.push(a - 1);
    for (const p of pages) this.touch(p);
    this.wanted = pages;
    this.pump();
  }

  // Resolves with the row at `index` once its page is in (fetching it if need be);
  // null when the index is out of range or the list was reset meanwhile.
  load(index) {
    if (index < 0 || index >= this.total) return Promise.resolve(null);
    if (this.has(index)) return Promise.resolve(this.get(index));
    const page = this.pageOf(index);
    const generation = this.generation;
    return new Promise((resolve) => {
      if (!this.waiters.has(page)) this.waiters.set(page, []);
      this.waiters.get(page).push(() => resolve(generation === this.generation ? this.get(index) : null));
      if (!this.wanted.includes(page)) this.wanted = [page, ...this.wanted];
      this.pump();
    });
  }

  // A page used again moves to the most recently used end.
  touch(page) {
    const events = this.pages.get(page);
    if (!events) return;
    this.pages.delete(page);
    this.pages.set(page, events);
  }

  pump() {
    for (const page of this.wanted) {
      if (this.inFlight.size >= this.maxInFlight) return;
      if (this.pages.has(page) || this.inFlight.has(page)) continue;
      this.start(page);
    }
  }

  start(page) {
    const generation = this.generation;
    const offset = page * this.pageSize;
    const limit = Math.min(this.pageSize, Math.max(1, this.total - offset));
    this.fetches++;
    const promise = Promise.resolve()
      .then(() => this.fetchPage(offset, limit))
      .then(
        (answer) => {
          if (generation !== this.generation) return;
          this.inFlight.delete(page);
          this.error = null;
          const totalChanged = typeof answer.total === 'number' && answer.total !== this.total;
          if (totalChanged) this.total = answer.total;
          this.pages.set(page, answer.events || []);
          this.stale.delete(page);
          this.evict();
          this.settle(page);
          this.onChange({ page, totalChanged });
          this.pump();
        },
        (error) => {
          if (generation !== this.generation) return;
          this.inFlight.delete(page);
          this.error = error;
          this.wanted = this.wanted.filter((p) => p !== page); // retried when next wanted
          this.settle(page);
          this.onChange({ page, error });
          this.pump();
        },
      );
    this.inFlight.set(page, promise);
  }

  settle(page) {
    const waiters = this.waiters.get(page);
    if (!waiters) return;
    this.waiters.delete(page);
    for (const resolve of waiters) resolve();
  }

  evict() {
    if (this.pages.size <= this.maxPages) return;
    const keep = new Set(this.wanted);
    for (const page of this.pages.keys()) {
      if (this.pages.size <= this.maxPages) break;
      if (!keep.has(page)) this.pages.delete(page);
    }
  }
}
