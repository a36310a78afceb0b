// Merging a live update into the page: after each event of /api/live (live.js) the page
// asks for the recording again and hands it here. The App (controller.js) takes it and
// refills its process list and indexes in place, since the views hold them; the views
// keep what the user chose (zoom, pin, highlight, hidden bands), and a chart showing the
// end of the recording moves with it.

import { chartMarks, kFlagKinds } from './events_model.js';
import { renderHeader } from './header.js';
import { clampView, isFullView } from './zoom.js';

export function applyLive(app, recording) {
  const { view } = app.state;
  const atEnd = view.to >= app.bounds.to;
  const full = isFullView(view, app.bounds.from, app.bounds.to);
  const width = view.to - view.from;
  const flagsChanged = flagCounts(recording) !== flagCounts(app.recording);
  app.takeRecording(recording);
  renderHeader(document.body, recording, app.source.kind, { watched: true });
  app.tree.setProcesses(app.processes);
  app.searchBox.setProcesses(app.processes);
  app.info.setRecording(recording);
  app.events.setCounts(app.source.eventKinds(recording));
  app.profiles.setRecording(recording);
  if (!recording.live && app.controlPanel) app.controlPanel.ended();
  app.showPeakWhenIdle();
  // The processes' starts and ends are drawn from the recording; the markers and
  // signals are asked for again only when there are new ones.
  if (flagsChanged) app.loadFlags();
  else app.chart.setMarks(chartMarks(app.flags || [], app.processItems));
  if (atEnd) {
    const { from, to } = app.bounds;
    app.store.set({ view: full ? { from, to } : clampView(to - width, to, from, to) });
  }
  // At once, the ticks in view may have changed too: the delay is for a zoom or a drag,
  // whose steps come many a second.
  app.reloadSeries();
  app.controls.renderViewRange();
}

// The recording a live update makes of `previous` and GET /api/recording?since='s
// answer: the processes that did not change are the previous ones (the server lists
// processes in the same order every time, new ones last). An answer without
// "processes_since" has them all. Null when the two do not add up to the server's count
// (the server restarted between them): the page then asks for the whole recording.
export function withProcessesSince(previous, next) {
  if (next.processes_since == null) return next;
  const changed = new Map(next.processes.map((p) => [p.id, p]));
  const processes = previous.processes.map((p) => changed.get(p.id) || p);
  for (const p of previous.processes) changed.delete(p.id);
  processes.push(...changed.values());
  if (processes.length !== next.process_count) return null;
  const merged = { ...next, processes };
  delete merged.processes_since;
  delete merged.process_count;
  return merged;
}

// The counts of the kinds drawn as flags on the chart (markers, signals, OOM kills):
// they change only when there are new ones to fetch.
function flagCounts(recording) {
  return kFlagKinds.map((kind) => (recording.event_kinds || {})[kind] || 0).join();
}
