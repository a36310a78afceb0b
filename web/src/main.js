// Bootstrap: pick the data source (embedded report or the `canopy view` API), start the
// page, and publish the test hook window.canopyView:
//   ready   resolves once the chart has drawn its first data, the events pane its first
//           page and the chart its markers
//           (rejects on a load error)
//   chart   the uPlot instance;  state  the live page state (see state.js)
//   source  'server' or 'embedded';  layers  the bands drawn (key, label, ids)
//   startMs, endMs  the recording's span (chart x is seconds since startMs)
//   processes  the recording's process list
//   series  the last /api/series answer the chart was built from
//   legend  the legend's bands, largest in view first: key, label, ids, area, hidden
//   frame   what the chart draws: t, x, total, layers and their cumulative tops (cum)
//   marks   the flags the chart drew last (markers, signals): t, kind, x in CSS px from
//           the plot's left, label (a marker's text, or null when it did not fit)
//   events  the events pane: total (lines of the enabled kinds), enabled (kinds),
//           markedLine, selectedLine, fetches (pages asked for), pages (held), inFlight
//   revealEvent(line)  scrolls the events pane to a line (an index among the enabled kinds)
//   firstChart  resolves when the first chart is drawn: the loading preview (the tree's
//           total, preview.js) when the server is still loading the samples, else the
//           full chart; with {preview: true|false, points} (rejects on a load error
//           before it)
//   panes   the splitters between the panels (panes.js)
//   preview the loading preview while it is shown (its uPlot instance: preview.u)
//   revealTreeNode(id)  expands the tree down to a process and scrolls to it
//   chartLitKeys()  the keys of the bands the chart draws lit (the highlight's)
//   live    while a recording is followed live (live.js): updates (merged so far),
//           connected (the event stream is open), following (false once it ended)
//           and latency (how late the chart drew the figures: draws, lastMs, worstMs)

import { startApp } from './controller.js';
import { followLive } from './live.js';
import { Panes } from './panes.js';
import { LoadingPreview } from './preview.js';
import { openSource } from './source.js';

const hook = { source: null, state: null, chart: null, layers: [] };
hook.ready = new Promise((resolve, reject) => {
  hook.resolveReady = resolve;
  hook.rejectReady = reject;
});
hook.ready.catch(() => {}); // reported on the page; a test awaiting it still sees it
hook.firstChart = new Promise((resolve, reject) => {
  hook.resolveFirstChart = resolve;
  hook.rejectFirstChart = reject; // a load error before any chart: a test sees it at once
});
hook.firstChart.catch(() => {});
window.canopyView = hook;

async function boot() {
  hook.panes = new Panes(document.querySelector('.layout'));
  try {
    const source = await openSource();
    hook.source = source.kind;
    document.documentElement.dataset.source = source.kind;
    let recording = await source.recording({ preview: true });
    if (recording.loading) {
      const preview = new LoadingPreview(recording, source.kind);
      hook.preview = preview;
      hook.resolveFirstChart({ preview: true, points: recording.total.t.length });
      recording = await source.recording();
      preview.remove();
      hook.preview = null;
    }
    const app = await startApp(source, hook, recording);
    followLive(app, source, hook);
  } catch (error) {
    showFatal(error);
    hook.rejectFirstChart(error);
    hook.rejectReady(error);
  }
}

function showFatal(error) {
  const banner = document.querySelector('[data-testid="error"]');
  banner.textContent = `canopy: ${error && error.message ? error.message : String(error)}`;
  banner.hidden = false;
  console.error(error);
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', boot);
else boot();
