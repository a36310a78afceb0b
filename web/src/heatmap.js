// The sub-second heat map of the CPU samples, as FlameScope draws it: one column per
// second of the recording, 50 rows of 20 ms within it from the top (their offsets
// labelled in the gutter on the left), each cell as dark as the samples taken in it.
// Its x axis is the memory chart's: the same visible range, the cells under the chart's
// plot area (`alignTo`, the chart's .u-over), so that a second sits under the same
// second of the chart. A drag from one cell to another selects the time from the
// earlier to the end of the later (a click: that one cell).

import { cellOf, cellRange, cellStart } from './profile_model.js';

const kRowPx = 3;
const kEmpty = '#f6f8fa';
const kSelection = 'rgba(9, 105, 218, 0.9)';
const kLabel = '#656d76';

// White through yellow and orange to dark red, as FlameScope shades its cells.
export function heatColor(fraction) {
  const f = Math.max(0, Math.min(1, fraction));
  const r = 255 - Math.round(80 * Math.max(0, f - 0.5) * 2);
  const g = Math.round(245 - 215 * f);
  const b = Math.round(200 - 190 * Math.min(1, f * 2));
  return `rgb(${r},${g},${b})`;
}

export class HeatMap {
  // onSelect({from, to, a, b}): a drag or click chose a range of cells.
  constructor(container, { alignTo, onSelect }) {
    this.container = container;
    this.alignTo = alignTo;
    this.onSelect = onSelect;
    this.canvas = document.createElement('canvas');
    this.canvas.dataset.testid = 'cpu-heatmap-canvas';
    this.canvas.className = 'heatmap-canvas';
    container.append(this.canvas);
    this.data = null;
    this.view = null;
    this.selection = null; // {a, b} cells
    this.drawn = { cells: 0, samples: 0, max: 0 };
    this.bindInput();
    new ResizeObserver(() => this.draw()).observe(container);
  }

  setData(heatmap) {
    this.data = heatmap;
    this.counts = new Map();
    let max = 0;
    for (const [second, row, count] of heatmap.cells) {
      this.counts.set(second * heatmap.rows + row, count);
      max = Math.max(max, count);
    }
    this.max = max;
    this.draw();
  }

  setView(view) {
    this.view = view;
    this.draw();
  }

  setSelection(selection) {
    this.selection = selection;
    this.draw();
  }

  // The plot's left edge and width in this canvas's coordinates (CSS px).
  geometry() {
    const own = this.container.getBoundingClientRect();
    const plot = this.alignTo().getBoundingClientRect();
    const left = Math.max(0, plot.left - own.left);
    const width = Math.max(1, Math.min(plot.width, own.width - left));
    return { left, width, cssWidth: own.width };
  }

  xOf(tMs, g) {
    return g.left + ((tMs - this.view.from) / (this.view.to - this.view.from)) * g.width;
  }

  // Where time tMs is drawn, in the page's CSS px from the viewport's left (test hook).
  pageX(tMs) {
    return this.canvas.getBoundingClientRect().left + this.xOf(tMs, this.geometry());
  }

  draw() {
    if (!this.data || !this.view) return;
    const g = this.geometry();
    const { rows, row_ms: rowMs, start_ms: startMs } = this.data;
    const height = rows * kRowPx;
    const ratio = window.devicePixelRatio || 1;
    this.canvas.style.width = `${g.cssWidth}px`;
    this.canvas.style.height = `${height}px`;
    this.canvas.width = Math.round(g.cssWidth * ratio);
    this.canvas.height = Math.round(height * ratio);
    const ctx = this.canvas.getContext('2d');
    ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
    ctx.fillStyle = kEmpty;
    ctx.fillRect(g.left, 0, g.width, height);
    ctx.save();
    ctx.beginPath();
    ctx.rect(g.left, 0, g.width, height);
    ctx.clip();
    let cells = 0;
    let samples = 0;
    const first = Math.max(0, Math.floor((this.view.from - startMs) / 1000));
    const last = Math.ceil((this.view.to - startMs) / 1000);
    for (const [key, count] of this.counts) {
      const second = Math.floor(key / rows);
      if (second < first || second > last) continue;
      const row = key % rows;
      const x0 = this.xOf(startMs + second * 1000, g);
      const x1 = this.xOf(startMs + (second + 1) * 1000, g);
      ctx.fillStyle = heatColor(count / this.max);
      ctx.fillRect(x0, row * kRowPx, Math.max(1, x1 - x0 - (x1 - x0 > 4 ? 1 : 0)), kRowPx);
      cells++;
      samples += count;
    }
    this.drawSelection(ctx, g, startMs, rowMs);
    ctx.restore();
    const labels = this.drawRowLabels(ctx, g, rows * rowMs, height);
    this.drawn = { cells, samples, max: this.max, labels };
    this.container.dataset.cells = String(cells);
    this.container.dataset.samples = String(samples);
  }

  // The rows' offsets within their second, in the gutter left of the cells (under the
  // chart's y axis), as FlameScope labels them: a row is a time within each column.
  drawRowLabels(ctx, g, columnMs, height) {
    if (g.left < 30) return [];
    const labels = [[0, 'top', '+0 ms'], [height / 2, 'middle', `+${columnMs / 2} ms`],
      [height, 'bottom', `+${columnMs} ms`]];
    ctx.fillStyle = kLabel;
    ctx.font = '10px sans-serif';
    ctx.textAlign = 'right';
    for (const [y, baseline, text] of labels) {
      ctx.textBaseline = baseline;
      ctx.fillText(text, g.left - 4, y);
    }
    return labels.map((label) => label[2]);
  }

  // The selected cells outlined: from cell a to cell b in time order, column by column.
  drawSelection(ctx, g, startMs, rowMs) {
    if (!this.selection) return;
    const { from, to } = cellRange(startMs, rowMs, this.selection.a, this.selection.b);
    const rows = this.data.rows;
    ctx.fillStyle = kSelection;
    const a = cellOf(startMs, rowMs, from);
    const b = cellOf(startMs, rowMs, to - 1);
    for (let second = a.second; second <= b.second; second++) {
      const top = second === a.second ? a.row : 0;
      const bottom = second === b.second ? b.row : rows - 1;
      const x0 = this.xOf(startMs + second * 1000, g);
      const x1 = this.xOf(startMs + (second + 1) * 1000, g);
      ctx.globalAlpha = 0.35;
      ctx.fillRect(x0, top * kRowPx, Math.max(1, x1 - x0), (bottom - top + 1) * kRowPx);
    }
    ctx.globalAlpha = 1;
  }

  // The cell under a mouse event, or null outside the plot.
  cellAt(event) {
    if (!this.data || !this.view) return null;
    const g = this.geometry();
    const rect = this.canvas.getBoundingClientRect();
    const x = event.clientX - rect.left;
    const y = event.clientY - rect.top;
    if (x < g.left || x > g.left + g.width || y < 0) return null;
    const t = this.view.from + ((x - g.left) / g.width) * (this.view.to - this.view.from);
    const second = Math.max(0, Math.floor((t - this.data.start_ms) / 1000));
    const row = Math.min(this.data.rows - 1, Math.max(0, Math.floor(y / kRowPx)));
    return { second, row };
  }

  bindInput() {
    this.canvas.addEventListener('mousedown', (event) => {
      const a = this.cellAt(event);
      if (!a || event.button !== 0) return;
      event.preventDefault();
      this.setSelection({ a, b: a });
      const move = (e) => {
        const b = this.cellAt(e);
        if (b) this.setSelection({ a, b });
      };
      const up = (e) => {
        window.removeEventListener('mousemove', move);
        window.removeEventListener('mouseup', up);
        const b = this.cellAt(e) || this.selection.b;
        this.setSelection({ a, b });
        const range = cellRange(this.data.start_ms, this.data.row_ms, a, b);
        this.onSelect({ ...range, a, b });
      };
      window.addEventListener('mousemove', move);
      window.addEventListener('mouseup', up);
    });
    this.canvas.addEventListener('mousemove', (event) => {
      const cell = this.cellAt(event);
      if (!cell) {
        this.canvas.title = '';
        return;
      }
      const count = this.counts ? this.counts.get(cell.second * this.data.rows + cell.row) || 0 : 0;
      const t = cellStart(this.data.start_ms, this.data.row_ms, cell) - this.data.start_ms;
      this.canvas.title = `+${(t / 1000).toFixed(2)} s: ${count} sample${count === 1 ? '' : 's'}`;
    });
  }
}
