// The search field: a name or a command line (process_search.js) highlights the
// matching processes, filters the tree to them and reveals the first; Enter zooms the
// chart to the next match in turn, Escape empties the field. Typing is debounced, so a
// recording of many processes is searched once the query settles, not at each key.

import { byTestId, debounce } from './dom.js';
import { keptNodes, ProcessSearch, searchHighlight } from './process_search.js';

const kSearchDelayMs = 150;

export class SearchBox {
  // options: store (state.js), tree (tree.js), showLifetime(ids) brings the lifetime of
  // the processes `ids` into the chart's view.
  constructor(processes, options) {
    this.options = options;
    this.search = new ProcessSearch(processes);
    this.matchIds = null; // null: no query
    this.matchAt = -1;
    this.query = '';
    this.box = byTestId('search');
    this.count = byTestId('search-count');
    const run = debounce(() => this.run(this.box.value), kSearchDelayMs);
    this.box.addEventListener('input', run);
    this.box.addEventListener('keydown', (e) => {
      if (e.key === 'Enter') {
        e.preventDefault();
        run.cancel();
        if (!this.matchIds || this.query !== this.box.value) this.run(this.box.value);
        this.nextMatch();
      } else if (e.key === 'Escape') {
        e.stopPropagation(); // the page's Escape (keyboard.js) would also unpin
        this.box.value = '';
        run.cancel();
        this.run('');
        this.box.blur();
      }
    });
  }

  // A live recording's new process list (live_merge.js): the next query searches it.
  setProcesses(processes) {
    this.search = new ProcessSearch(processes);
  }

  focus() {
    this.box.focus();
  }

  run(query) {
    const { store, tree } = this.options;
    this.query = query;
    const ids = this.search.match(query);
    this.matchIds = ids;
    this.matchAt = -1;
    if (!ids) {
      this.count.textContent = '';
      tree.setFilter(null);
      if (store.state.highlighted && store.state.highlighted.kind === 'search') store.set({ highlighted: null });
      return;
    }
    this.count.textContent = ids.length ? `${ids.length} ${ids.length === 1 ? 'match' : 'matches'}` : 'no match';
    tree.setFilter(keptNodes(tree.tree, ids));
    store.set({ highlighted: ids.length ? searchHighlight(query, ids) : null });
    if (ids.length) tree.reveal(ids[0]);
  }

  nextMatch() {
    if (!this.matchIds || !this.matchIds.length) return;
    this.matchAt = (this.matchAt + 1) % this.matchIds.length;
    const id = this.matchIds[this.matchAt];
    this.options.tree.reveal(id);
    this.options.showLifetime([id]);
    this.count.textContent = `${this.matchAt + 1} of ${this.matchIds.length}`;
  }
}
