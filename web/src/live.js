// Following a recording still being written (`canopy record --serve`, or `canopy view`
// of a file a running recorder writes): the server sends an event after each update it
// has read (GET /api/live, server-sent events, web/API.md), and the page asks for what
// changed in the recording since the update it has, and merges it in (live_merge.js).
// The browser's EventSource reconnects by itself after a dropped connection; a reloaded
// page opens a new one.

import { applyLive, withProcessesSince } from './live_merge.js';

export function followLive(app, source, hook) {
  if (!app.recording.live || typeof EventSource !== 'function') return;
  const live = { updates: 0, connected: false, following: true, latency: { draws: 0, lastMs: null, worstMs: null } };
  hook.live = live;
  const stream = new EventSource('api/live');
  // One refresh at a time; updates that come meanwhile make one more.
  let running = false;
  let again = false;
  const refresh = async () => {
    if (running) {
      again = true;
      return;
    }
    running = true;
    do {
      again = false;
      try {
        const changed = await source.recording({ since: app.recording.update });
        applyLive(app, withProcessesSince(app.recording, changed) || (await source.recording()));
        live.updates += 1;
      } catch (error) {
        app.controls.setStatus(`could not follow the recording: ${error.message}`, true);
      }
    } while (again);
    running = false;
  };
  stream.addEventListener('open', () => {
    live.connected = true;
  });
  stream.addEventListener('error', () => {
    live.connected = false; // EventSource tries again by itself
  });
  stream.addEventListener('update', (event) => {
    const update = JSON.parse(event.data);
    if (update.error) app.controls.setStatus(`stopped following the recording: ${update.error}`, true);
    if (!update.following) {
      stream.close();
      live.connected = false;
      live.following = false;
    }
    refresh();
  });
}

// After each chart drawn while following: how long ago the oldest figure it drew for the
// first time was read (the tick after the previous chart's last, `intervalMs` later),
// the last and the worst (bench/live.py reports them). Same clock: the page and the
// recorder run on one machine when it is measured.
export function noteDrawn(live, toMs, intervalMs) {
  const latency = live.latency;
  if (latency.previousToMs != null && toMs > latency.previousToMs) {
    const lagMs = Date.now() - (latency.previousToMs + (intervalMs || 0));
    latency.draws += 1;
    latency.lastMs = lagMs;
    latency.worstMs = Math.max(latency.worstMs ?? lagMs, lagMs);
  }
  latency.previousToMs = Math.max(latency.previousToMs ?? toMs, toMs);
}
