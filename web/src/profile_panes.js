// The profile panes under the chart, shown only for a recording that holds a CPU
// profile (record --cpu-profile) or a heap profile (record --heap):
// - the CPU heat map (heatmap.js) of the highlighted process, command or subtree, or of
//   the tree; a drag on it selects a time range;
// - the CPU flame graph (flamegraph.js) of that range and selection, and of the whole
//   recording until a range is picked (or again after "Whole recording");
// - for the highlighted process, the in-use heap at the pinned time as a flame graph,
//   and what grew from a base time (set from the pinned time) to the pinned time.
// They follow the page's state (state.js): the chart's view, the highlight, the pin.
// Test hook: window.canopyView.profiles (heatmap, drawn, heatX(t), range, flame, heap,
// diff).

import { byTestId } from './dom.js';
import { FlameGraph } from './flamegraph.js';
import { formatBytes, formatElapsed } from './format.js';
import { HeatMap } from './heatmap.js';
import { drawableProfiles } from './profile_model.js';
import { profileSource } from './profile_source.js';

const kGrewPrompt = 'Grew: set a base time (pin one, press “Set base”), then pin a later one';

function samplesText(n) {
  return `${n} sample${n === 1 ? '' : 's'}`;
}

export class ProfilePanes {
  // processById: the page's index of the recording's processes, refilled in place as a
  // live recording grows (process_index.js).
  constructor(root, { source, recording, processById, store, startMs, alignTo, hook }) {
    this.cpu = null;
    this.heapInfo = null;
    this.root = root;
    this.store = store;
    this.state = store.state;
    this.startMs = startMs;
    this.alignTo = alignTo;
    this.processById = processById;
    this.source = profileSource(source);
    this.range = null; // the range picked on the heat map; null: the whole recording
    this.whole = null; // the whole recording's extent, {from, to}, from the heat map
    this.wholeShownFor = undefined; // the highlight whose whole-recording graph is drawn
    this.baseT = null;
    this.sequence = { cpu: 0, flame: 0, heap: 0 };
    this.status = { heatmap: null, flame: null, heap: null, diff: null, range: null };
    Object.defineProperty(hook, 'profiles', { get: () => this.hookState(), configurable: true });
    this.setRecording(recording);
  }

  // The recording, at load and after each live update (live_merge.js): a profile that
  // has come to hold something since gets its panes, and one that grew is asked again.
  setRecording(recording) {
    const drawable = drawableProfiles(recording);
    if (!drawable.cpu && !drawable.heap) return;
    if (this.root.hidden) {
      this.root.hidden = false;
      document.body.classList.add('has-profiles');
      this.store.subscribe((changed) => this.follow(changed));
    }
    this.root.classList.toggle('heap-only', !drawable.cpu); // the heap panes take the whole width
    const cpuBefore = this.cpu;
    const heapBefore = this.heapInfo;
    this.cpu = drawable.cpu;
    this.heapInfo = drawable.heap;
    // The flame graphs are left as they are (a reload would undo the reader's zoom): the
    // CPU one is of the range as it was picked, the heap one is asked again only when
    // a snapshot it would show has come.
    if (this.cpu && !cpuBefore) this.buildCpu();
    else if (this.cpu && this.cpu.samples !== cpuBefore.samples) this.loadHeatmap();
    if (this.heapInfo && !heapBefore) this.buildHeap();
    else if (this.heapInfo && this.heapShowsLess(heapBefore)) this.loadHeap();
  }

  // Whether the heap pane shows less than the snapshots now known would: nothing yet (a
  // note), or an older snapshot than one that has come for the pinned time.
  heapShowsLess(before) {
    const id = this.heapProcess();
    if (id == null) return false;
    if (!this.status.heap) return true;
    const known = (before.snapshots[String(id)] || []).length;
    const now = this.heapInfo.snapshots[String(id)] || [];
    return now.slice(known).some((t) => t <= this.state.selectedT);
  }

  buildCpu() {
    byTestId('cpu-panel', this.root).hidden = false;
    byTestId('cpu-flame-panel', this.root).hidden = false;
    byTestId('cpu-sampling', this.root).textContent = this.cpu.sampling;
    this.heat = new HeatMap(byTestId('cpu-heatmap', this.root), {
      alignTo: this.alignTo,
      onSelect: (range) => this.selectRange(range),
    });
    this.heat.setView(this.state.view);
    this.flame = new FlameGraph(byTestId('cpu-flame-host', this.root), { testid: 'cpu-flame', format: samplesText });
    this.flame.setTree(null, '');
    byTestId('cpu-flame-whole', this.root).addEventListener('click', () => {
      this.range = null;
      this.heat.setSelection(null);
      this.loadFlame();
    });
    this.loadHeatmap();
  }

  buildHeap() {
    byTestId('heap-panel', this.root).hidden = false;
    this.heapFlame = new FlameGraph(byTestId('heap-flame-host', this.root), { testid: 'heap-flame', format: formatBytes });
    this.diffFlame = new FlameGraph(byTestId('heap-diff-host', this.root), { testid: 'heap-diff', format: formatBytes, diff: true });
    byTestId('heap-base', this.root).addEventListener('click', () => {
      this.baseT = this.state.selectedT;
      this.loadHeap();
    });
    this.loadHeap();
  }

  follow(changed) {
    if (changed.has('view') && this.heat) this.heat.setView(this.state.view);
    if (changed.has('highlighted')) {
      if (this.cpu) {
        this.loadHeatmap();
        if (this.range) this.loadFlame(); // else the heat map's answer brings the whole
      }
      if (this.heapInfo) this.loadHeap();
    }
    if (changed.has('selectedT') && this.heapInfo) this.loadHeap();
  }

  selectionLabel() {
    const h = this.state.highlighted;
    return h ? h.label : 'the whole tree';
  }

  async loadHeatmap() {
    const sequence = ++this.sequence.cpu;
    const highlight = this.state.highlighted;
    byTestId('cpu-selection', this.root).textContent = this.selectionLabel();
    try {
      const heatmap = await this.source.cpuHeatmap(highlight);
      if (sequence !== this.sequence.cpu) return;
      this.status.heatmap = { samples: heatmap.samples, cells: heatmap.cells.length };
      this.heat.setData(heatmap);
      byTestId('cpu-heatmap-note', this.root).textContent = heatmap.samples === 0
        ? `No CPU samples of ${this.selectionLabel()}.` : `${samplesText(heatmap.samples)}; drag to pick a range`;
      this.whole = { from: heatmap.start_ms, to: heatmap.start_ms + heatmap.seconds * 1000 };
      // The whole recording's graph once per selection: a live recording's heat map comes
      // again with each new sample, and redrawing would undo the reader's zoom.
      if (!this.range && this.wholeShownFor !== highlight) this.loadFlame();
      // A live recording's whole graph drawn before these samples came: the button redraws it.
      else if (!this.range) {
        byTestId('cpu-flame-whole', this.root).disabled = this.status.range?.samples === heatmap.samples;
      }
    } catch (error) {
      byTestId('cpu-heatmap-note', this.root).textContent = `could not load the heat map: ${error.message}`;
    }
  }

  selectRange(range) {
    this.range = { from: range.from, to: range.to };
    this.loadFlame();
  }

  async loadFlame() {
    const range = this.range || this.whole;
    if (!range) return;
    const whole = !this.range;
    const highlight = this.state.highlighted;
    const sequence = ++this.sequence.flame;
    const title = byTestId('cpu-flame-title', this.root);
    byTestId('cpu-flame-whole', this.root).disabled = whole;
    try {
      const answer = await this.source.cpuFlame(highlight, range.from, range.to);
      if (sequence !== this.sequence.flame) return;
      this.wholeShownFor = whole ? highlight : undefined;
      // The range summed: the one asked for, or (a large report) widened to its buckets.
      const { from, to } = answer;
      const widened = from !== range.from || to !== range.to
        ? ` (widened to whole ${formatElapsed(answer.bucket_ms)} buckets, as this report keeps the samples)` : '';
      title.textContent = whole
        ? `${this.selectionLabel()}, the whole recording; drag across the heat map to narrow it`
        : `${this.selectionLabel()}, +${formatElapsed(from - this.startMs, 3)} – +${formatElapsed(to - this.startMs, 3)}${widened}`;
      this.status.range = { from, to, samples: answer.samples, whole };
      this.flame.setTree(answer.samples > 0 ? answer.tree : null,
        answer.samples > 0 ? '' : `No CPU samples of ${this.selectionLabel()} in ${whole ? 'the recording' : 'this range'}.`);
    } catch (error) {
      title.textContent = this.selectionLabel();
      this.flame.setTree(null, `could not load the flame graph: ${error.message}`);
    }
  }

  // The process the heap panes show: the highlighted one, else the only one profiled.
  heapProcess() {
    const h = this.state.highlighted;
    const profiled = Object.keys(this.heapInfo.snapshots).map(Number);
    if (h && h.kind === 'process') return profiled.includes(h.rootId) ? h.rootId : null;
    return !h && profiled.length === 1 ? profiled[0] : null;
  }

  // Why the highlighted process has no heap profile, as the recording says (once it
  // ended); null when it says nothing of it.
  unprofiledNote() {
    const h = this.state.highlighted;
    const why = h && h.kind === 'process' ? (this.heapInfo.unprofiled || {})[String(h.rootId)] : null;
    if (!why) return null;
    const p = this.processById.get(h.rootId);
    return `${p ? `${p.name} ${p.pid}` : `process ${h.rootId}`} has no heap profile: ${why.meaning} (${why.reason})`;
  }

  async loadHeap() {
    const sequence = ++this.sequence.heap;
    const id = this.heapProcess();
    const t = this.state.selectedT;
    const note = byTestId('heap-note', this.root);
    byTestId('heap-base', this.root).disabled = t == null;
    const p = id != null ? this.processById.get(id) : null;
    byTestId('heap-process', this.root).textContent = p ? `${p.name} ${p.pid}` : '';
    this.status.heap = null;
    this.status.diff = null;
    if (id == null || t == null) {
      note.textContent = id == null
        ? this.unprofiledNote() ?? 'Highlight a process with a heap profile (click its band or its row), then pin a time.'
        : 'Pin a time on the chart to see what the heap held then.';
      this.clearHeapFlames();
      return;
    }
    // Before the process's first snapshot there is nothing to ask for: say when it comes.
    const first = (this.heapInfo.snapshots[String(id)] || [])[0];
    if (first != null && t < first) {
      note.textContent = `no heap snapshot yet: its first is at +${formatElapsed(first - this.startMs, 3)}`;
      this.clearHeapFlames();
      return;
    }
    try {
      const held = await this.source.heapFlame(id, t);
      if (sequence !== this.sequence.heap) return;
      this.status.heap = { process: id, t, snapshotT: held.t_ms, total: held.tree.v, highWater: held.high_water_bytes };
      // A heap that rose and fell between two snapshots: the profiler's estimate of its top.
      const between = held.high_water_bytes == null ? ''
        : `; it reached about ${formatBytes(held.high_water_bytes)} between snapshots (the profiler's high-water estimate)`;
      const at = formatElapsed(held.t_ms - this.startMs, 3);
      note.textContent = `in use at the snapshot of +${at}: ${formatBytes(held.tree.v)}${between}`;
      this.heapFlame.setTree(held.tree.v > 0 ? held.tree : null, held.tree.v > 0 ? '' : 'The heap held nothing sampled then.');
    } catch (error) {
      note.textContent = error.message;
      this.heapFlame.setTree(null, '');
    }
    await this.loadDiff(sequence, id, t);
  }

  clearHeapFlames() {
    this.heapFlame.setTree(null, '');
    this.diffFlame.setTree(null, '');
    byTestId('heap-diff-title', this.root).textContent = kGrewPrompt;
  }

  async loadDiff(sequence, id, t) {
    const title = byTestId('heap-diff-title', this.root);
    if (this.baseT == null || this.baseT === t) {
      title.textContent = kGrewPrompt;
      this.diffFlame.setTree(null, '');
      return;
    }
    const from = Math.min(this.baseT, t);
    const to = Math.max(this.baseT, t);
    try {
      const diff = await this.source.heapDiff(id, from, to);
      if (sequence !== this.sequence.heap) return;
      this.status.diff = { process: id, from, to, fromT: diff.from_ms, toT: diff.to_ms, grown: diff.tree.v };
      title.textContent = `Grew from +${formatElapsed(diff.from_ms - this.startMs, 3)} to +${formatElapsed(diff.to_ms - this.startMs, 3)}: ${formatBytes(diff.tree.v)}`;
      this.diffFlame.setTree(diff.tree.v > 0 ? diff.tree : null, diff.tree.v > 0 ? '' : 'Nothing grew between the two times.');
    } catch (error) {
      title.textContent = error.message;
      this.diffFlame.setTree(null, '');
    }
  }

  hookState() {
    return {
      cpu: this.cpu,
      heapInfo: this.heapInfo,
      heatmap: this.status.heatmap,
      drawn: this.heat ? this.heat.drawn : null,
      heatX: (t) => (this.heat ? this.heat.pageX(t) : null),
      range: this.status.range,
      flame: this.flame ? this.flame.stats : null,
      flameTree: this.flame ? this.flame.tree : null,
      heap: this.status.heap,
      heapFlame: this.heapFlame ? this.heapFlame.stats : null,
      diff: this.status.diff,
      diffFlame: this.diffFlame ? this.diffFlame.stats : null,
      diffTree: this.diffFlame ? this.diffFlame.tree : null,
      baseT: this.baseT,
    };
  }
}
