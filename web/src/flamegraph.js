// A flame graph of a merged stack tree (profile_model.js), drawn as positioned boxes,
// the root on top and callees below it (an icicle). An interpreter's or a compiler's
// stacks run a hundred frames deep, mostly in slivers: the graph scrolls within a
// window's share of height (profiles.css), so the panes below it stay in reach.
// A box's width is its total; a click zooms into it (its ancestors stay above it at
// full width; a click on one of them, or Reset, zooms back out). The search field
// marks the frames whose name holds the text and says what share of the root they
// cover (each sample counted once). Names are set as text, never parsed as HTML.

import { el } from './dom.js';
import { flameLayout, growthShare, nodeAt, searchTree } from './profile_model.js';

const kRowPx = 18;
const kMinBoxPx = 0.5;

// flamegraph.pl's warm palette, stable per name so that a function keeps its colour.
function warmColor(name) {
  let hash = 0;
  for (let i = 0; i < name.length; i++) hash = (hash * 31 + name.charCodeAt(i)) >>> 0;
  const r = 205 + (hash % 50);
  const g = 80 + ((hash >>> 8) % 120);
  const b = 40 + ((hash >>> 16) % 50);
  return `rgb(${r},${g},${b})`;
}

// Diff boxes: pale where the frame held as much before, deep red where all of it grew.
function growthColor(node) {
  const f = growthShare(node);
  return `rgb(${Math.round(250 - 40 * f)},${Math.round(225 - 175 * f)},${Math.round(215 - 175 * f)})`;
}

export class FlameGraph {
  // format(v): a figure as text ("123 samples", "4.0 MiB"); diff: colour by growth.
  constructor(container, { testid, format, diff = false }) {
    this.format = format;
    this.diff = diff;
    this.tree = null;
    this.focus = [];
    this.query = '';
    this.search = el('input', { type: 'search', placeholder: 'search frames', className: 'flame-search', dataset: { testid: `${testid}-search` } });
    this.matchLabel = el('span', { className: 'muted flame-match', dataset: { testid: `${testid}-match` } });
    this.resetButton = el('button', { type: 'button', className: 'small', dataset: { testid: `${testid}-reset` }, disabled: true, text: 'Reset zoom' });
    this.message = el('div', { className: 'empty muted flame-message', dataset: { testid: `${testid}-message` } });
    this.body = el('div', { className: 'flame-body', dataset: { testid } });
    this.root = el('div', { className: 'flame' },
      el('div', { className: 'flame-tools' }, this.search, this.matchLabel, el('span', { className: 'spacer' }), this.resetButton),
      this.message, el('div', { className: 'flame-scroll', dataset: { testid: `${testid}-scroll` } }, this.body));
    container.append(this.root);
    this.search.addEventListener('input', () => this.setQuery(this.search.value));
    this.resetButton.addEventListener('click', () => this.zoom([]));
    this.body.addEventListener('click', (event) => {
      const box = event.target.closest('.flame-box');
      if (!box) return;
      const path = box.dataset.path ? box.dataset.path.split('.').map(Number) : [];
      const focused = path.length <= this.focus.length && path.every((x, i) => x === this.focus[i]);
      // A box above the focus (or the focus itself) zooms out to it: back up the stack.
      this.zoom(focused && path.length === this.focus.length ? path.slice(0, -1) : path);
    });
    new ResizeObserver(() => this.render()).observe(this.body);
  }

  // tree: a root node, or null with `message` saying why there is nothing to draw.
  setTree(tree, message = '') {
    this.tree = tree;
    this.focus = [];
    this.message.textContent = message;
    this.message.hidden = !message;
    this.render();
  }

  setQuery(query) {
    this.query = query;
    if (this.search.value !== query) this.search.value = query;
    this.render();
  }

  zoom(path) {
    this.focus = path;
    this.render();
  }

  render() {
    this.resetButton.disabled = this.focus.length === 0;
    this.body.replaceChildren();
    this.stats = { boxes: 0, matched: 0, matchedTotal: 0, root: this.tree ? this.tree.v : 0, focus: null };
    this.body.dataset.root = String(this.stats.root);
    if (!this.tree || this.tree.v === 0) {
      this.matchLabel.textContent = '';
      this.body.style.height = '0px';
      return;
    }
    const width = this.body.clientWidth || 800;
    const found = searchTree(this.tree, this.query);
    const rects = flameLayout(this.tree, this.focus, kMinBoxPx / width);
    const focusNode = nodeAt(this.tree, this.focus);
    let depth = 0;
    for (const rect of rects) {
      const node = rect.node;
      const match = found.matched.has(node);
      const label = `${node.n} — ${this.format(node.v)} (${((100 * node.v) / this.tree.v).toFixed(1)}%)` +
        (this.diff ? `; ${this.format(node.b)} → ${this.format(node.a)}` : '');
      const box = el('div', {
        className: `flame-box${match ? ' matched' : ''}${node === focusNode ? ' focused' : ''}`,
        title: label,
        dataset: { name: node.n, v: String(node.v), path: rect.path.join('.'), depth: String(rect.depth) },
      }, rect.w * width > 30 ? node.n : '');
      box.style.left = `${rect.x * 100}%`;
      box.style.width = `${rect.w * 100}%`;
      box.style.top = `${rect.depth * kRowPx}px`;
      box.style.background = match ? '#e040fb' : this.diff ? growthColor(node) : warmColor(node.n);
      this.body.append(box);
      depth = Math.max(depth, rect.depth);
      if (match) this.stats.matched++;
    }
    this.body.style.height = `${(depth + 1) * kRowPx}px`;
    this.stats.boxes = rects.length;
    this.stats.matchedTotal = found.total;
    this.stats.focus = focusNode.n;
    this.matchLabel.textContent = this.query.trim()
      ? `${found.matched.size} frame${found.matched.size === 1 ? '' : 's'} match: ${this.format(found.total)}, ${(100 * found.share).toFixed(1)}% of the root`
      : '';
  }
}
