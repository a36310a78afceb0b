// Bootstrap: pick the data source (embedded report or the `canopy view` API), start the
// page, and publish the test hook window.canopyView:
//   ready   resolves once the chart has drawn its first data and the events are in
//           (rejects on a load error)
//   chart   the uPlot instance;  state  the live page state (see state.js)
//   source  'server' or 'embedded';  layers  the bands drawn (key, label, ids)
//   startMs, endMs  the recording's span (chart x is seconds since startMs)
//   processes  the recording's process list
//   frame   what the chart draws: t, x, total, layers and their cumulative tops (cum)

import { startApp } from './controller.js';
import { openSource } from './source.js';

const hook = { source: null, state: null, chart: null, layers: [] };
hook.ready = new Promise((resolve, reject) => {
  hook.resolveReady = resolve;
  hook.rejectReady = reject;
});
hook.ready.catch(() => {}); // reported on the page; a test awaiting it still sees it
window.canopyView = hook;

async function boot() {
  try {
    const source = await openSource();
    hook.source = source.kind;
    document.documentElement.dataset.source = source.kind;
    await startApp(source, hook);
  } catch (error) {
    showFatal(error);
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
