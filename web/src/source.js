// The page's two data sources, one interface (see web/API.md):
// - ServerSource: `canopy view` serves the JSON API; URLs are relative so the page works
//   under any path prefix. Series are refetched for each zoomed range.
// - EmbeddedSource: `canopy report --html` embeds the data (gzip + base64) in
//   <script id="canopy-data">; no request may leave the page (its CSP has
//   connect-src 'none'), so decoding uses DecompressionStream, not a data: URL fetch.

import { atFromSeries } from './at_local.js';

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

  recording() {
    return getJson('api/recording');
  }

  // Asked for in parallel with the recording, but awaited apart: a log import can make
  // this answer large, and the chart need not wait for it.
  async events() {
    const answer = await getJson('api/events');
    return answer.events || [];
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
  async at(tMs) {
    const key = Math.round(tMs);
    if (this.atCache.has(key)) return this.atCache.get(key);
    const promise = getJson(`api/at?t=${key}`);
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

  async events() {
    return this.payload.events || [];
  }

  // The embedded series cover the whole recording at one resolution: zooming only
  // changes the scale, so the range and points are ignored.
  async series(metric) {
    const series = this.payload.series && this.payload.series[metric];
    if (!series) throw new Error(`the report has no series for metric '${metric}'`);
    return series;
  }

  async at(tMs, referenceMetric) {
    const memTotal = this.payload.recording.meta && this.payload.recording.meta.mem_total_bytes;
    return atFromSeries(this.payload.series || {}, referenceMetric, tMs, memTotal);
  }
}

export async function openSource() {
  const element = document.getElementById('canopy-data');
  if (element) return EmbeddedSource.fromElement(element);
  return new ServerSource();
}
