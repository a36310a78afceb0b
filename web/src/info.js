// The information panel (Cutelooker's information window): every process alive at the
// hovered or pinned tick with all its figures, and the totals of the tree and the
// machine. Rows are a virtual list: a service can have thousands alive at once.

import { byTestId, el, fillCells } from './dom.js';
import { formatBytes, formatPercent } from './format.js';
import { groupTitle, kGroupCountMeaning } from './groups.js';
import { infoRows } from './info_model.js';
import { sampleSide, stepSide } from './steps.js';
import { VirtualList } from './virtual_list.js';

const kRowHeight = 22;

export class InfoPanel {
  // options: source, recording, processById, idsByName, time() (the page's time format,
  // time_format.js), onRowClick(row)
  constructor(root, options) {
    this.root = root;
    this.options = options;
    this.meta = options.recording.meta || {};
    this.hasPss = Boolean(this.meta.pss);
    this.rows = [];
    this.at = null;
    this.litIds = null;
    this.metric = null; // set by the first setMode()
    this.grouped = false;
    this.requested = null;
    this.sequence = 0;
    root.classList.toggle('has-pss', this.hasPss);
    this.columns = this.makeColumns();
    const head = byTestId('info-head', root);
    head.replaceChildren(...this.columns.map((c) => el('span', { className: c.className, text: c.title, title: c.tip })));
    this.list = new VirtualList(byTestId('info-rows', root), {
      rowHeight: kRowHeight,
      className: 'vrow info-row',
      renderRow: (index, row) => this.renderRow(index, row),
    });
    this.list.viewport.addEventListener('click', (e) => this.click(e));
    this.list.viewport.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' || e.key === ' ') this.click(e);
    });
  }

  // A live update's recording (live_merge.js): the metrics and meta it reads from now on.
  setRecording(recording) {
    this.options.recording = recording;
    this.meta = recording.meta || {};
  }

  makeColumns() {
    const bytes = (v) => (v == null ? '—' : formatBytes(v));
    const columns = [
      { title: 'Process', className: 'c-name', text: (r) => (r.short ? `${r.name} · ${r.short}` : r.name) },
      // A group shows its number of processes where a process shows its pid.
      { title: 'PID', className: 'c-num', text: (r) => (r.count ? `×${r.count}` : r.pid ?? ''), tip: `process id; for a group, ${kGroupCountMeaning}` },
      { title: 'PPID', className: 'c-num c-ppid', text: (r) => r.ppid ?? '' },
      { title: 'Resident', metric: 'rss', className: 'c-num', text: (r) => bytes(r.rss) },
      { title: 'Anon', metric: 'anon', className: 'c-num', text: (r) => bytes(r.anon), tip: 'private anonymous memory (heap, stacks)' },
      { title: 'Swap', metric: 'swap', className: 'c-num', text: (r) => bytes(r.swap) },
    ];
    if (this.hasPss) columns.push({ title: 'PSS', metric: 'pss', className: 'c-num', text: (r) => bytes(r.pss), tip: 'proportional set size' });
    columns.push({ title: 'CPU', metric: 'cpu', className: 'c-num', text: (r) => formatPercent(r.cpu), tip: 'percent of one core' });
    columns.push({ title: 'Thr', className: 'c-num c-thr', text: (r) => r.threads ?? '—', tip: 'threads' });
    return columns;
  }

  // How the chart's metric holds between samples (steps.js): the sample that stands
  // for a time between two is the one whose step the chart draws there.
  side() {
    const metric = (this.options.recording.metrics || []).find((m) => m.id === this.metric);
    return stepSide(metric ? metric.unit : 'bytes');
  }

  // Shows the sample in effect at t (side()); `how` says why ('pinned', 'hover', 'peak').
  async show(t, how) {
    if (t == null) return;
    this.how = how;
    this.askedT = t;
    const side = sampleSide(this.side());
    const key = `${t}|${this.metric}|${side}`;
    if (this.requested === key) {
      this.renderHeading();
      return;
    }
    this.requested = key;
    const sequence = ++this.sequence;
    try {
      const at = await this.options.source.at(t, this.metric, side);
      if (sequence !== this.sequence) return; // a later request won
      this.at = at;
      this.rebuild();
    } catch (error) {
      if (sequence !== this.sequence) return;
      this.requested = null; // ask again next time
      this.showError(error);
    }
  }

  setMode(metric, grouped) {
    if (metric === this.metric && grouped === this.grouped) return;
    const metricChanged = metric !== this.metric;
    this.metric = metric;
    this.grouped = grouped;
    const head = byTestId('info-head', this.root);
    for (const [i, column] of this.columns.entries()) head.children[i].classList.toggle('sorted', column.metric === metric);
    // The report reads processes at the chart's metric's own points, and a time between
    // two samples may now be read from the other side: ask again.
    if (metricChanged && this.at && (this.options.source.kind === 'embedded' || this.askedT !== this.at.t)) {
      this.requested = null;
      this.show(this.askedT ?? this.at.t, this.how);
      return;
    }
    this.rebuild();
  }

  setHighlight(ids) {
    this.litIds = ids && ids.length ? new Set(ids) : null;
    this.list.render();
  }

  rebuild() {
    if (!this.at) return;
    this.rows = infoRows(this.at, this.options.processById, this.metric, this.grouped, this.options.idsByName);
    this.list.setCount(this.rows.length);
    this.list.render();
    this.renderHeading();
    this.renderTotals();
  }

  renderHeading() {
    if (!this.at) return;
    byTestId('info-time', this.root).textContent = this.options.time().at(this.at.t);
    const why = { pinned: 'pinned', hover: 'under the cursor', peak: 'the peak' }[this.how] || '';
    byTestId('info-why', this.root).textContent = why + this.sampleNote();
    this.root.dataset.t = String(this.at.t);
    this.root.dataset.askedT = String(this.askedT ?? this.at.t);
    this.root.dataset.how = this.how || '';
  }

  // When the sample shown is not at the time asked for (an event's time between two
  // samples), which one it is and why; in the report, whose points are a thinned subset,
  // that it is the nearest embedded one.
  sampleNote() {
    if (this.askedT == null || this.askedT === this.at.t) return this.at.nearest ? ' · nearest recorded point' : '';
    const asked = this.options.time().at(this.askedT);
    const sample = this.at.nearest ? 'embedded sample' : 'sample';
    const earlier = this.at.t < this.askedT;
    if (this.side() === 'after') {
      return earlier
        ? ` ${asked} · the last ${sample} before it (values hold until the next sample)`
        : ` ${asked} · the first ${sample}, after it: none was taken before`;
    }
    return earlier
      ? ` ${asked} · the last ${sample}, before it: none was taken after`
      : ` ${asked} · the first ${sample} after it (its CPU is over the interval holding ${asked})`;
  }

  renderTotals() {
    const totals = this.at.totals || {};
    const parts = [
      ['processes', totals.processes ?? this.at.processes.length],
      ['resident', formatBytes(totals.rss)],
      ['swap', formatBytes(totals.swap)],
      this.hasPss ? ['PSS', formatBytes(totals.pss)] : null,
      ['CPU', formatPercent(totals.cpu)],
      ['MemAvailable', totals.mem_available != null ? `${formatBytes(totals.mem_available)} of ${formatBytes(totals.mem_total)}` : '—'],
    ].filter(Boolean);
    byTestId('info-totals', this.root).replaceChildren(
      ...parts.map(([name, value]) => el('span', { className: 'total' }, el('span', { className: 'k', text: name }), el('span', { className: 'v', text: String(value) }))),
    );
  }

  renderRow(index, row) {
    const r = this.rows[index];
    fillCells(row, this.columns.map((c) => c.text(r)), this.columns.map((c) => c.className));
    row.dataset.index = String(index);
    if (r.id != null) row.dataset.id = String(r.id);
    else delete row.dataset.id;
    if (r.id == null) row.dataset.group = r.name;
    else delete row.dataset.group;
    row.dataset.testid = 'info-row';
    row.tabIndex = 0;
    row.title = r.count ? groupTitle(r.name, this.options.idsByName, r.alive) : this.describe(r);
    row.classList.toggle('lit', Boolean(this.litIds && r.ids.some((id) => this.litIds.has(id))));
  }

  describe(r) {
    const process = this.options.processById.get(r.id);
    if (!process) return r.name;
    if (process.named_from_exit_record) return `${process.name} (named by its exit record: gone before its command line could be read)`;
    return (process.cmdline && process.cmdline.length ? process.cmdline.join(' ') : process.name).slice(0, 2000);
  }

  click(e) {
    const row = e.target.closest('.info-row');
    if (!row || row.hidden) return;
    const r = this.rows[Number(row.dataset.index)];
    if (r) this.options.onRowClick(r);
  }

  showError(error) {
    byTestId('info-why', this.root).textContent = `could not load: ${error.message}`;
  }
}
