// The process tree panel: the hierarchy with, per node, its pid, how it ended, its own
// peak and its subtree's simultaneous peak and CPU time; or, in lanes mode (lanes.js),
// its life over the chart's visible range. A virtual list over the rows of expanded
// nodes, so 3,000 processes cost a screenful of DOM. Clicking a row highlights the
// process; the "subtree" figure highlights it with all its descendants; a lane also
// zooms the chart to the process's life.

import { byTestId, el } from './dom.js';
import { formatBytes, formatCpuTime, formatExit } from './format.js';
import { drawLane } from './lanes.js';
import { ancestorsOf, buildTree, defaultExpanded, flattenVisible, subtreeIds } from './tree_model.js';
import { VirtualList } from './virtual_list.js';

const kRowHeight = 22;
const kIndentPx = 14;
// Levels indented; a row this deep or deeper (a recursive make, shells that call shells)
// is drawn at the last indent with its level written before its name, so that the name
// stays in its column.
const kIndentLevels = 16;
// A peak between samples (or of a process no sample saw) is known from the kernel's
// high-water mark, the figure `canopy report` gives too; when, only to within its life.
const kPeakFromExitTitle = "from the kernel's high-water mark (exit record): higher than any sample saw, reached at some time before the process ended";
const kSubtreeButtonTitle = 'highlight this process and all its descendants';
const kSubtreeAtLeastTitle = "at least: one of these processes alone reached this between two ticks, higher than any tick's sum";

export class TreePanel {
  // options: processes, runningAtEnd(process), onHighlightProcess(id), onHighlightSubtree(id, ids),
  // onLanes(on), onLane(id)
  constructor(root, options) {
    this.root = root;
    this.options = options;
    this.tree = buildTree(options.processes);
    this.expanded = defaultExpanded(this.tree);
    this.litIds = null;
    this.rows = [];
    this.list = new VirtualList(byTestId('tree-rows', root), {
      rowHeight: kRowHeight,
      className: 'vrow tree-row',
      renderRow: (index, row) => this.renderRow(index, row),
    });
    this.list.viewport.addEventListener('click', (e) => this.click(e));
    this.list.viewport.addEventListener('keydown', (e) => this.key(e));
    byTestId('tree-expand-all', root).addEventListener('click', () => this.expandAll(true));
    byTestId('tree-collapse-all', root).addEventListener('click', () => this.expandAll(false));
    this.lanesToggle = byTestId('tree-lanes', root);
    this.lanesToggle.addEventListener('change', () => this.options.onLanes(this.lanesToggle.checked));
    this.lanes = null;
    this.refresh();
  }

  // lanes: what drawLane needs (the controller's series and view), or null for the
  // figures' columns.
  setLanes(lanes) {
    this.lanes = lanes;
    this.lanesToggle.checked = Boolean(lanes);
    this.root.classList.toggle('lanes', Boolean(lanes));
    this.list.render();
  }

  // A recording followed live (live.js): the processes as they are now. What the user
  // opened or closed stays so; a process that has just had its first child opens as it
  // would have at load.
  setProcesses(processes) {
    const before = this.tree;
    this.tree = buildTree(processes);
    for (const id of defaultExpanded(this.tree)) {
      if (!before.children.has(id)) this.expanded.add(id);
    }
    this.refresh();
  }

  refresh() {
    this.rows = flattenVisible(this.tree, this.expanded, this.keep);
    this.list.setCount(this.rows.length);
    this.root.dataset.rows = String(this.rows.length);
  }

  expandAll(open) {
    this.expanded = open ? new Set(this.tree.children.keys()) : new Set();
    this.refresh();
  }

  toggle(id) {
    if (this.expanded.has(id)) this.expanded.delete(id);
    else this.expanded.add(id);
    this.refresh();
  }

  // A search's filter (process_search.js): only its matches and their ancestors, or
  // everything again with null.
  setFilter(keep) {
    this.keep = keep;
    this.root.dataset.filtered = String(Boolean(keep));
    this.refresh();
  }

  setHighlight(highlight) {
    this.litIds = highlight && highlight.ids.length ? new Set(highlight.ids) : null;
    this.subtreeRoot = highlight && highlight.kind === 'subtree' ? highlight.rootId : null;
    this.list.render();
  }

  // Opens the ancestors of id and scrolls to it (a highlight made on the chart).
  reveal(id) {
    if (!this.tree.byId.has(id)) return;
    let opened = false;
    for (const ancestor of ancestorsOf(this.tree, id)) {
      if (!this.expanded.has(ancestor)) {
        this.expanded.add(ancestor);
        opened = true;
      }
    }
    if (opened) this.refresh();
    this.list.reveal(this.rows.findIndex((row) => row.id === id));
  }

  renderRow(index, row) {
    const { id, depth, hasChildren, expanded } = this.rows[index];
    const p = this.tree.byId.get(id);
    if (row.childElementCount === 0) this.buildRow(row);
    const [name, pid, exit, peak, subPeak, subCpu, lane] = row.children;
    row.dataset.id = String(id);
    row.dataset.index = String(index);
    row.dataset.testid = 'tree-node';
    row.setAttribute('aria-level', String(depth + 1));
    if (hasChildren) row.setAttribute('aria-expanded', String(expanded));
    else row.removeAttribute('aria-expanded');
    row.classList.toggle('lit', Boolean(this.litIds && this.litIds.has(id)));
    row.classList.toggle('subtree-root', this.subtreeRoot === id);
    name.style.paddingLeft = `${4 + Math.min(depth, kIndentLevels) * kIndentPx}px`;
    const [level, toggle, label, short, badge] = name.children;
    level.hidden = depth < kIndentLevels;
    level.textContent = level.hidden ? '' : `level ${depth + 1}`;
    toggle.textContent = hasChildren ? (expanded ? '▾' : '▸') : '';
    toggle.hidden = !hasChildren;
    label.textContent = p.name;
    label.title = (p.cmdline && p.cmdline.length ? p.cmdline.join(' ') : p.exe || p.name).slice(0, 2000);
    // What tells one cc1plus of a build from its hundred siblings: its source file.
    short.textContent = p.short || '';
    short.title = label.title;
    badge.hidden = !p.adopted;
    pid.textContent = String(p.pid);
    const ended = formatExit(p.exit_code, p.exit_signal);
    exit.textContent = ended || (this.options.runningAtEnd(p) ? 'running at end' : '');
    exit.classList.toggle('bad', p.exit_signal != null || (p.exit_code != null && p.exit_code !== 0));
    peak.textContent = p.peak_rss_bytes != null ? formatBytes(p.peak_rss_bytes) : '—';
    peak.classList.toggle('from-exit', Boolean(p.peak_from_exit_record));
    peak.title = p.peak_from_exit_record ? kPeakFromExitTitle : '';
    // A subtree of one process peaks at its peak, exactly; with descendants, a peak one
    // member reached between ticks is a floor for the simultaneous sum.
    const atLeast = Boolean(p.subtree_peak_at_least) && hasChildren;
    const subtreeBytes = p.subtree_peak_rss_bytes != null ? formatBytes(p.subtree_peak_rss_bytes) : '—';
    subPeak.firstChild.textContent = atLeast ? `≥ ${subtreeBytes}` : subtreeBytes;
    const how = atLeast ? kSubtreeAtLeastTitle : !hasChildren && p.peak_from_exit_record ? kPeakFromExitTitle : '';
    subPeak.firstChild.title = how ? `${kSubtreeButtonTitle}; ${how}` : kSubtreeButtonTitle;
    subCpu.textContent = formatCpuTime(p.subtree_cpu_ns);
    if (this.lanes) drawLane(lane.firstChild, p, this.lanes);
  }

  buildRow(row) {
    row.tabIndex = 0;
    row.setAttribute('role', 'treeitem');
    row.append(
      el('span', { className: 'c-name' },
        el('span', { className: 'level', title: 'its level in the tree, deeper than the indent goes' }),
        el('button', { className: 'twisty', 'data-action': 'toggle', tabindex: '-1', 'aria-label': 'expand or collapse' }),
        el('span', { className: 'name' }),
        el('span', { className: 'short' }),
        el('span', { className: 'badge small', text: 'adopted', title: 'an orphan reparented to canopy (the subreaper), not to the command' })),
      el('span', { className: 'c-num' }),
      el('span', { className: 'c-exit c-fig' }),
      el('span', { className: 'c-num c-fig' }),
      el('span', { className: 'c-num c-fig' },
        el('button', { className: 'subtree', 'data-action': 'subtree', 'data-testid': 'tree-subtree', tabindex: '-1', title: kSubtreeButtonTitle })),
      el('span', { className: 'c-num c-fig' }),
      el('span', { className: 'c-lane', 'data-action': 'lane', title: 'the process’s life; click to zoom the chart to it' },
        el('canvas', { 'data-testid': 'tree-lane' })),
    );
  }

  click(e) {
    const row = e.target.closest('.tree-row');
    if (!row || row.hidden) return;
    const id = Number(row.dataset.id);
    const action = e.target.closest('[data-action]');
    if (action && action.dataset.action === 'toggle') this.toggle(id);
    else if (action && action.dataset.action === 'subtree') this.options.onHighlightSubtree(id, subtreeIds(this.tree, id));
    else if (action && action.dataset.action === 'lane') this.options.onLane(id);
    else this.options.onHighlightProcess(id);
  }

  // Keyboard: Enter highlights, s the subtree, ←/→ collapse/expand, ↑/↓ move.
  key(e) {
    const row = e.target.closest('.tree-row');
    if (!row) return;
    const id = Number(row.dataset.id);
    const index = Number(row.dataset.index);
    const handled = { Enter: true, ' ': true, s: true, ArrowRight: true, ArrowLeft: true, ArrowUp: true, ArrowDown: true };
    if (!handled[e.key]) return;
    e.preventDefault();
    e.stopPropagation();
    if (e.key === 'Enter' || e.key === ' ') this.options.onHighlightProcess(id);
    else if (e.key === 's') this.options.onHighlightSubtree(id, subtreeIds(this.tree, id));
    else if (e.key === 'ArrowRight' && !this.expanded.has(id) && this.tree.children.has(id)) this.toggle(id);
    else if (e.key === 'ArrowLeft' && this.expanded.has(id)) this.toggle(id);
    else if (e.key === 'ArrowUp' || e.key === 'ArrowDown') this.focusRow(index + (e.key === 'ArrowUp' ? -1 : 1));
  }

  focusRow(index) {
    if (index < 0 || index >= this.rows.length) return;
    this.list.reveal(index);
    const row = this.list.viewport.querySelector(`.tree-row[data-index="${index}"]`);
    if (row) row.focus();
  }
}
