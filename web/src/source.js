// The page's two data sources, one interface (see web/API.md):
// - ServerSource: `canopy view` serves the JSON API; URLs are relative so the page works
//   under any path prefix. Series are refetched for each zoomed range.
// - EmbeddedSource: `canopy report --html` embeds the data (gzip + base64) in
//   <script id="canopy-data">; no request may leave the page (its CSP has
//   connect-src 'none'), so decoding uses DecompressionStream, not a data: URL fetch.

import { atFromSeries } from './at_local.js';
import { LocalEvents, kFlagKinds, kindsParam } from './events_model.js';

const kMaxFlagPages = 20; // markers and signals on the chart: up to 20,000

async function getJson(url, signal) {
  const response = await fetch(url, { signal, headers: { Accept: 'application/json' } });
  if (!response.ok) {
    let detail = `${response.status} ${response.statusText}`;
    try {
      const body = await response.json();
      if (body && body.error) detail = body.error;
    } catch {
      // not JSON: keep the status line
    }
    throw new Error(`${url.split('?')[0]}: ${detail}`);
  }
  return response.json();
}

export class ServerSource {
  constructor() {
    this.kind = 'server';
    this.refetches = true;
    this.atCache = new Map();
  }

  // preview: while `canopy view` loads the samples, answer at once with a preview
  // ("loading": true); without it the answer waits for the load.
  // `since`: only the processes changed after that update of the recording (a page
  // following it live merges them in: live_merge.js).
  recording({ preview = false, since = null } = {}) {
    if (preview) return getJson('api/recording?preview=1');
    return getJson(since == null ? 'api/recording' : `api/recording?since=${since}`);
  }

  // Lines per kind (GET /api/recording's event_kinds): every line the server lists.
  eventKinds(recording) {
    return new Map(Object.entries(recording.event_kinds || {}));
  }

  // kinds: a kindsParam string ('' for none), or null for every kind.
  eventsPage(kinds, offset, limit) {
    const query = new URLSearchParams({ offset: String(offset), limit: String(limit) });
    if (kinds != null) query.set('kinds', kinds);
    return getJson(`api/events?${query}`);
  }

  // Cached per filter and time: the pane asks again for the same pinned or hovered tick.
  async eventIndexAt(kinds, tMs) {
    const query = new URLSearchParams({ at: String(Math.round(tMs)) });
    if (kinds != null) query.set('kinds', kinds);
    const url = `api/events?${query}`;
    if (!this.eventAtCache) this.eventAtCache = new Map();
    if (this.eventAtCache.has(url)) return this.eventAtCache.get(url);
    const promise = getJson(url);
    this.eventAtCache.set(url, promise);
    if (this.eventAtCache.size > 500) this.eventAtCache.delete(this.eventAtCache.keys().next().value);
    try {
      return await promise;
    } catch (error) {
      this.eventAtCache.delete(url);
      throw error;
    }
  }

  // The events the chart draws as flags (markers, signals, OOM kills), in time order.
  async flagEvents() {
    const kinds = kindsParam(kFlagKinds);
    const out = [];
    for (let page = 0; page < kMaxFlagPages; page++) {
      const answer = await this.eventsPage(kinds, out.length, 1000);
      out.push(...answer.events);
      if (answer.events.length === 0 || out.length >= answer.total) break;
    }
    return out;
  }

  // The server lists every line: nothing to say.
  eventsNote() {
    return null;
  }

  series(metric, fromMs, toMs, points, signal) {
    const query = new URLSearchParams({
      metric,
      from: String(Math.floor(fromMs)),
      to: String(Math.ceil(toMs)),
      points: String(Math.max(1, Math.min(20000, Math.round(points)))),
    });
    return getJson(`api/series?${query}`, signal);
  }

  // Cached by tick: the chart asks for real ticks (the points it draws), so moving the
  // mouse back and forth costs one request per tick.
  // `side`: which sample stands for a time between two (steps.js, GET /api/at).
  async at(tMs, metric, side = 'nearest') {
    const t = Math.round(tMs);
    const key = `${t}|${side}`;
    if (this.atCache.has(key)) return this.atCache.get(key);
    const promise = getJson(`api/at?t=${t}&side=${side}`);
    this.atCache.set(key, promise);
    if (this.atCache.size > 2000) this.atCache.delete(this.atCache.keys().next().value);
    try {
      return await promise;
    } catch (error) {
      this.atCache.delete(key);
      throw error;
    }
  }
}

export class EmbeddedSource {
  constructor(payload) {
    this.kind = 'embedded';
    this.refetches = false;
    this.payload = payload;
    this.local = new LocalEvents(payload.events || []);
  }

  static async fromElement(element) {
    const text = element.textContent.replace(/\s+/g, '');
    const binary = atob(text);
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
    const json = await new Response(stream).text();
    return new EmbeddedSource(JSON.parse(json));
  }

  async recording() {
    return this.payload.recording;
  }

  // What the report embeds: all of the few kinds, a thinned share of the dense ones.
  eventKinds() {
    return this.local.counts();
  }

  async eventsPage(kinds, offset, limit) {
    return this.local.page(kinds, offset, limit);
  }

  async eventIndexAt(kinds, tMs) {
    return this.local.indexAt(kinds, tMs);
  }

  async flagEvents() {
    const { indices } = this.local.filter(kindsParam(kFlagKinds));
    return indices.map((i) => this.local.events[i]);
  }

  // How much of the recording's events the report holds, when not all:
  // {shown, total, kinds: Map of the recording's counts}.
  eventsNote() {
    const shown = this.local.events.length;
    const total = this.payload.events_total ?? shown;
    if (shown >= total) return null;
    return { shown, total, kinds: new Map(Object.entries(this.payload.recording.event_kinds || {})) };
  }

  // The embedded series cover the whole recording at one resolution: zooming only
  // changes the scale, so the range and points are ignored.
  async series(metric) {
    const series = this.payload.series && this.payload.series[metric];
    if (!series) throw new Error(`the report has no series for metric '${metric}'`);
    return series;
  }

  async at(tMs, referenceMetric, side = 'nearest') {
    const memTotal = this.payload.recording.meta && this.payload.recording.meta.mem_total_bytes;
    return atFromSeries(this.payload.series || {}, referenceMetric, tMs, memTotal, side);
  }
}

export async function openSource() {
  const element = document.getElementById('canopy-data');
  if (element) return EmbeddedSource.fromElement(element);
  return new ServerSource();
}
