// Wires the page: loads the recording, builds the views, and turns user intents (zoom,
// pin, highlight, metric, grouping) into state changes that every view follows.
// In server mode the series are refetched for each settled zoom, at about one point per
// CSS pixel; meanwhile the chart keeps drawing the data it has, rescaled.
// The controls around the views (page_controls.js), the search field (search_box.js),
// the keyboard shortcuts (keyboard.js) and the merge of a live update (live_merge.js)
// are modules of their own that act through the store or the App.

import { StackChart } from './chart.js';
import { byTestId, debounce } from './dom.js';
import { chartMarks, processEvents } from './events_model.js';
import { EventsPane } from './events.js';
import { yTitle } from './chart_axes.js';
import { formatBytes, formatPercent } from './format.js';
import { renderHeader } from './header.js';
import { groupsByDefault } from './groups.js';
import { groupHighlight, layerHighlight, processHighlight, subtreeHighlight, toggled } from './highlight.js';
import { InfoPanel } from './info.js';
import { ControlPanel } from './control_panel.js';
import { bindKeyboardShortcuts } from './keyboard.js';
import { laneScale, lifeSpan } from './lanes.js';
import { noteDrawn } from './live.js';
import { PageControls } from './page_controls.js';
import { refillProcessIndex } from './process_index.js';
import { ProfilePanes } from './profile_panes.js';
import { Legend } from './legend.js';
import { SearchBox } from './search_box.js';
import { buildFrame } from './stack.js';
import { createStore } from './state.js';
import { isolate, kDefaultTopN, toggleHidden } from './top_bands.js';
import { timeFormat } from './time_format.js';
import { TreePanel } from './tree.js';
import { unsampledTreeNote } from './tree_model.js';
import { readUrlState, writeUrlState } from './url_state.js';
import { clampView, lifetimeOf, panBy, recordingBounds, revealTime, viewForLifetime, zoomAround } from './zoom.js';

const kRefetchDelayMs = 150;
const kHoverDelayMs = 50;

// The chart is drawn as soon as the recording and its first series are in; the events
// pane fetches the page in view (a recording can hold ten million log lines), and the
// chart's flags (markers, signals) join when they arrive. `ready` waits for all three.
export async function startApp(source, hook, recording) {
  const app = new App(source, recording, hook);
  const flags = app.loadFlags();
  await app.loadSeries();
  await Promise.all([flags, app.events.firstLoad()]);
  app.eventsLoaded = true;
  app.maybeReady();
  return app;
}

class App {
  constructor(source, recording, hook) {
    this.source = source;
    this.hook = hook;
    this.processes = [];
    this.processById = new Map();
    this.idsByName = new Map();
    this.takeRecording(recording);
    this.metrics = recording.metrics && recording.metrics.length ? recording.metrics : [{ id: 'rss', label: 'Resident', unit: 'bytes' }];
    const fromUrl = readUrlState(location.hash);
    this.store = createStore({
      metric: this.metrics[0].id,
      grouped: fromUrl.grouped ?? groupsByDefault(this.processes),
      topN: fromUrl.topN ?? kDefaultTopN,
      clock: fromUrl.clock ?? 'elapsed',
      hidden: new Set(),
      showAvailable: false,
      view: { from: this.bounds.from, to: this.bounds.to },
      hoverT: null,
      selectedT: null,
      highlighted: null,
      lanes: false,
      fetches: 0,
    });
    this.state = this.store.state;
    hook.state = this.state;
    hook.startMs = this.bounds.from; // x on the chart is seconds since this
    hook.processes = this.processes;
    this.raw = null;
    this.rawKey = null;
    this.sequence = 0;
    this.buildViews();
    this.store.subscribe((changed) => this.follow(changed));
    this.refetchSoon = debounce(() => this.loadSeries(), kRefetchDelayMs);
    // Without refetches (the HTML report) the bands are ranked anew for a settled view.
    this.rerankSoon = debounce(() => this.redrawFrame(), kRefetchDelayMs);
    this.hoverInfoSoon = debounce(() => this.showInfo(), kHoverDelayMs);
    // Hovering asks the server where the time falls among the events: once it settles.
    this.hoverEventsSoon = debounce(() => {
      if (this.state.selectedT == null && this.state.hoverT != null) this.events.markTime(this.state.hoverT);
    }, kHoverDelayMs);
    this.controls = new PageControls(this.store, {
      metrics: this.metrics,
      unitOf: (metric) => this.unitOf(metric),
      time: () => this.time,
      bounds: () => this.bounds,
      onReset: () => this.resetView(),
    });
    this.searchBox = new SearchBox(this.processes, {
      store: this.store,
      tree: this.tree,
      showLifetime: (ids) => this.showLifetime(ids),
    });
    bindKeyboardShortcuts(this);
    this.showPeakWhenIdle();
  }

  // Nothing pinned or hovered: the information panel shows the peak tick, at load and
  // as a live recording grows. A peak of 0 B is no tick's: a tree that ended before one
  // sampled it (the chart says so).
  showPeakWhenIdle() {
    const peak = this.recording.peak;
    if (this.state.selectedT == null && this.state.hoverT == null && peak && peak.t_ms != null && peak.rss_bytes > 0) {
      this.info.show(peak.t_ms, 'peak');
    }
  }

  // The recording, and what the App derives from it: at load, and again for each live
  // update (live_merge.js). The process list and its maps stay the same objects, refilled
  // (process_index.js): the views were given them at load.
  takeRecording(recording) {
    this.recording = recording;
    this.meta = recording.meta || {};
    const note = unsampledTreeNote(recording);
    const noteNode = byTestId('chart-note');
    noteNode.textContent = note || '';
    noteNode.hidden = !note;
    refillProcessIndex(this, recording.processes || []);
    this.bounds = recordingBounds(this.meta, this.processes);
    this.hook.endMs = this.bounds.to;
    this.processItems = processEvents(this.processes, this.meta.end_ms);
    this.timeCache = null; // the time format holds the start and the clock's offset
  }

  buildViews() {
    renderHeader(document.body, this.recording, this.source.kind);
    const chartRoot = byTestId('chart');
    this.chart = new StackChart(chartRoot, {
      startMs: this.bounds.from,
      view: this.state.view,
      cpuCount: this.meta.cpu_count ?? null,
      handlers: {
        timeFormat: () => this.time,
        yTitle: () => this.yTitle(),
        onHover: (t) => this.store.set({ hoverT: t }),
        onClick: (click) => this.chartClick(click),
        onView: (view) => this.setView(view),
        onZoom: (anchor, factor) => this.setView(zoomAround(this.state.view, anchor, factor, this.bounds.from, this.bounds.to)),
        onPan: (fraction) => this.pan(fraction),
        onDoubleClick: () => this.chartDoubleClick(),
        onResize: () => this.source.refetches && this.refetchSoon(),
        onDrawn: () => this.drawn(),
        formatValue: (v) => this.formatValue(v),
      },
    });
    this.chart.setMarks(chartMarks([], this.processItems));
    Object.defineProperty(this.hook, 'chart', { get: () => this.chart.u, configurable: true });
    Object.defineProperty(this.hook, 'marks', { get: () => this.chart.drawnFlags, configurable: true });
    Object.defineProperty(this.hook, 'series', { get: () => this.raw, configurable: true });
    Object.defineProperty(this.hook, 'frame', { get: () => this.chart.frame, configurable: true });
    this.info = new InfoPanel(byTestId('info-panel'), {
      source: this.source,
      recording: this.recording,
      processById: this.processById,
      idsByName: this.idsByName,
      time: () => this.time,
      onRowClick: (row) => this.toggleHighlight(row.id != null ? processHighlight(row.id, this.highlightContext()) : groupHighlight(row.name, this.idsByName)),
    });
    this.info.setMode(this.state.metric, this.state.grouped);
    // Only a server that records the tree has one.
    ControlPanel.attach(byTestId('info-panel'), this.source).then((panel) => {
      this.controlPanel = panel;
      if (panel && !this.recording.live) panel.ended();
    });
    this.legend = new Legend(byTestId('legend'), {
      onToggle: (key) => this.store.set({ hidden: toggleHidden(this.state.hidden, key) }),
      onIsolate: (key) => this.store.set({ hidden: isolate(this.state.hidden, key, this.chart.frame.legend.map((l) => l.key)) }),
    });
    this.tree = new TreePanel(byTestId('tree-panel'), {
      processes: this.processes,
      runningAtEnd: (p) => p.end_ms == null && p.last_ms != null && this.meta.end_ms != null && p.last_ms >= this.meta.end_ms,
      onHighlightProcess: (id) => this.highlightFromTree(processHighlight(id, this.highlightContext())),
      onHighlightSubtree: (id, ids) => this.highlightFromTree(subtreeHighlight(id, ids, this.processById)),
      onLanes: (on) => this.store.set({ lanes: on }),
      onLane: (id) => this.zoomToLife(id),
    });
    this.events = new EventsPane(byTestId('events-panel'), {
      source: this.source,
      counts: this.source.eventKinds(this.recording),
      logSources: this.recording.log_sources || [],
      note: this.source.eventsNote(),
      processById: this.processById,
      startMs: this.bounds.from,
      time: () => this.time,
      onLineClick: (item) => this.pinAt(item.t, true),
      onError: (message) => this.controls.setStatus(message, true),
    });
    Object.defineProperty(this.hook, 'events', { get: () => this.events.status(), configurable: true });
    this.hook.revealEvent = (line) => this.events.list.reveal(line);
    this.profiles = new ProfilePanes(byTestId('profiles'), {
      source: this.source, recording: this.recording, processById: this.processById, store: this.store,
      startMs: this.bounds.from,
      alignTo: () => chartRoot.querySelector('.u-over'), hook: this.hook,
    });
    this.hook.revealTreeNode = (id) => this.tree.reveal(id);
    this.hook.chartLitKeys = () => this.chart.litKeys;
  }

  // What each state change touches.
  follow(changed) {
    const s = this.state;
    this.controls.follow(changed);
    if (changed.has('metric')) {
      this.info.setMode(s.metric, s.grouped);
      this.loadSeries();
    }
    if (changed.has('grouped')) {
      this.info.setMode(s.metric, s.grouped);
      // Band keys change with the grouping: what was hidden means nothing now.
      this.store.set({ hidden: new Set() });
      this.redrawFrame();
    }
    if (changed.has('topN') || changed.has('hidden')) this.redrawFrame();
    if (changed.has('clock')) this.followClock();
    if (changed.has('topN') || changed.has('grouped') || changed.has('clock')) history.replaceState(null, '', writeUrlState(s));
    if (changed.has('showAvailable')) this.chart.setShowAvailable(s.showAvailable);
    if (changed.has('lanes')) this.redrawLanes();
    if (changed.has('view')) {
      this.chart.setView(s.view);
      this.redrawLanes();
      if (this.source.refetches) this.refetchSoon();
      else this.rerankSoon();
    }
    if (changed.has('selectedT')) {
      this.chart.setPinned(s.selectedT);
      this.showInfo();
      this.events.markTime(s.selectedT ?? s.hoverT);
    }
    if (changed.has('hoverT') && s.selectedT == null) {
      this.hoverInfoSoon();
      if (s.hoverT != null) this.hoverEventsSoon();
    }
    if (changed.has('highlighted')) this.followHighlight(s.highlighted);
  }

  showInfo() {
    const s = this.state;
    if (s.selectedT != null) this.info.show(s.selectedT, 'pinned');
    else if (s.hoverT != null) this.info.show(s.hoverT, 'hover');
  }

  async loadSeries() {
    const { metric, view } = this.state;
    const points = this.chart.plotWidth();
    const key = this.source.refetches ? `${metric}|${Math.floor(view.from)}|${Math.ceil(view.to)}|${points}` : metric;
    if (key === this.rawKey) return;
    const sequence = ++this.sequence;
    if (this.abort) this.abort.abort();
    this.abort = typeof AbortController === 'function' ? new AbortController() : null;
    this.controls.setStatus('loading…');
    try {
      const data = await this.source.series(metric, view.from, view.to, points, this.abort && this.abort.signal);
      if (sequence !== this.sequence) return; // superseded by a later zoom or metric
      this.raw = data;
      this.rawKey = key;
      this.store.set({ fetches: this.state.fetches + 1 });
      this.redrawFrame();
      if (this.hook.live) noteDrawn(this.hook.live, data.to, this.meta.interval_ms);
      this.controls.setStatus(data.exact ? '' : 'downsampled');
    } catch (error) {
      if (error && error.name === 'AbortError') return;
      if (sequence === this.sequence) this.controls.setStatus(`could not load the series: ${error.message}`, true);
      if (!this.raw) throw error; // the first load failed: the page has nothing to show
    }
  }

  // The series asked for at once, even for the view and metric it has (a live update
  // brings new ticks into them); a refetch still waiting for the zoom to settle is dropped.
  reloadSeries() {
    this.rawKey = null;
    this.refetchSoon.cancel();
    return this.loadSeries();
  }

  // Markers, signals and OOM kills: few, all drawn on the chart.
  async loadFlags() {
    try {
      const flags = await this.source.flagEvents();
      this.flags = flags;
      this.chart.setMarks(chartMarks(flags, this.processItems));
    } catch (error) {
      this.controls.setStatus(`could not load the markers: ${error.message}`, true);
    }
  }

  redrawFrame() {
    if (!this.raw) return;
    const { grouped, topN, hidden, view } = this.state;
    const bands = { topN, hidden, xMin: (view.from - this.bounds.from) / 1000, xMax: (view.to - this.bounds.from) / 1000 };
    const frame = buildFrame(this.raw, this.processById, grouped, this.bounds.from, this.idsByName, bands);
    this.legend.render(frame.legend, hidden, (layer) => layer.label);
    this.hook.legend = frame.legend.map((l) => ({ key: l.key, label: l.label, ids: l.ids, area: l.area, hidden: hidden.has(l.key) }));
    this.hook.layers = frame.layers.map((l) => ({ key: l.key, label: l.label, ids: l.ids }));
    this.chart.setFrame(frame, this.unitOf(frame.metric));
    this.redrawLanes();
  }

  // The tree's lanes follow the chart: its series (the metric, each process's slice) and
  // its visible range, as drawn now.
  redrawLanes() {
    if (!this.state.lanes || !this.raw) {
      this.tree.setLanes(null);
      return;
    }
    const unit = this.unitOf(this.raw.metric);
    this.tree.setLanes({
      series: this.raw,
      sliceById: new Map(this.raw.series.map((slice) => [slice.id, slice])),
      view: this.state.view,
      unit,
      scale: laneScale(this.raw, unit),
      endMs: this.bounds.to,
    });
    byTestId('lanes-range').textContent = `Life in view (${this.time.atShort(this.state.view.from, 1)} – ${this.time.atShort(this.state.view.to, 1)})`;
  }

  // A lane's click: the process highlighted and the chart zoomed to its life.
  zoomToLife(id) {
    const p = this.processById.get(id);
    if (!p) return;
    const life = lifeSpan(p, this.bounds.to);
    const pad = Math.max((life.to - life.from) * 0.05, this.meta.interval_ms || 100);
    this.store.set({ highlighted: processHighlight(id, this.highlightContext()) });
    this.setView({ from: life.from - pad, to: life.to + pad });
  }

  // After each chart draw: the first one with data (an empty recording counts).
  drawn() {
    if (this.raw && !this.chartDrawn) {
      this.chartDrawn = true;
      this.hook.resolveFirstChart({ preview: false, points: this.raw.t.length });
    }
    this.maybeReady();
  }

  // The test hook's `ready`: the chart drawn with data and the events pane filled.
  maybeReady() {
    if (this.ready || !this.chartDrawn || !this.eventsLoaded) return;
    this.ready = true;
    this.hook.resolveReady(this.hook);
  }

  unitOf(metric) {
    const m = this.metrics.find((x) => x.id === metric);
    return m && m.unit === 'percent' ? 'percent' : 'bytes';
  }

  formatValue(value) {
    return this.unitOf(this.state.metric) === 'percent' ? formatPercent(value) : formatBytes(value);
  }

  setView(view) {
    this.store.set({ view: clampView(view.from, view.to, this.bounds.from, this.bounds.to) });
  }

  pan(fraction) {
    this.store.set({ view: panBy(this.state.view, fraction, this.bounds.from, this.bounds.to) });
  }

  resetView() {
    this.store.set({ view: { from: this.bounds.from, to: this.bounds.to } });
  }

  // A click pins its tick and picks the band under it; on the pinned marker it unpins.
  // The second click of a double-click does nothing: the double-click resets the zoom
  // and undoes the first click, so it changes nothing else.
  chartClick({ t, layer, onPinned, count }) {
    if (count >= 2) return;
    this.beforeClick = { selectedT: this.state.selectedT, highlighted: this.state.highlighted };
    if (onPinned) {
      this.store.set({ selectedT: null });
      return;
    }
    this.store.set({ selectedT: t });
    if (layer) this.toggleHighlight(layerHighlight(layer, this.highlightContext()));
  }

  chartDoubleClick() {
    if (this.beforeClick) this.store.set(this.beforeClick);
    this.resetView();
  }

  // Pins t; from an event line, also brings t into view if it is outside.
  pinAt(t, reveal) {
    this.store.set({ selectedT: t });
    if (reveal) {
      const view = revealTime(this.state.view, t, this.bounds.from, this.bounds.to);
      if (view !== this.state.view) this.store.set({ view });
    }
  }

  // --- highlight: one process, one command name, or a subtree; the same ids everywhere.

  highlightContext() {
    return { processById: this.processById, idsByName: this.idsByName, grouped: this.state.grouped };
  }

  toggleHighlight(highlight) {
    this.store.set({ highlighted: toggled(this.state.highlighted, highlight) });
  }

  // From the tree, what is highlighted may be a sliver of the view or outside it (6 s of
  // a 15 min build): the chart zooms to its lifetime so its bands can be seen.
  highlightFromTree(highlight) {
    this.toggleHighlight(highlight);
    const now = this.state.highlighted;
    if (!now || now.kind === 'group') return;
    this.showLifetime(now.ids);
  }

  // Brings the lifetime of the processes `ids` into view (zoom.js: viewForLifetime).
  showLifetime(ids) {
    const { from, to } = this.bounds;
    const view = viewForLifetime(this.state.view, lifetimeOf(ids, this.processById), from, to, this.meta.interval_ms ?? 0);
    if (view !== this.state.view) this.store.set({ view });
  }

  followHighlight(highlight) {
    const ids = highlight ? highlight.ids : null;
    this.chart.setHighlight(ids);
    this.info.setHighlight(ids);
    this.tree.setHighlight(highlight);
    if (highlight && highlight.kind === 'process') this.tree.reveal(highlight.rootId);
  }

  // --- time: one format everywhere (time_format.js), since the start or on the wall clock

  get time() {
    const key = this.state.clock;
    if (!this.timeCache || this.timeCache.clock !== key) {
      this.timeCache = timeFormat({ clock: key, startMs: this.bounds.from, utcOffsetS: this.meta.utc_offset_s ?? 0, timezone: this.meta.timezone ?? null });
    }
    return this.timeCache;
  }

  followClock() {
    this.chart.redrawAxes();
    this.info.renderHeading();
    this.events.refreshTimes();
  }

  yTitle() {
    const m = this.metrics.find((x) => x.id === this.state.metric);
    return yTitle(m ? m.label : null, this.unitOf(this.state.metric), this.meta.cpu_count ?? null);
  }
}
