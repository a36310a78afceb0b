// The events pane's model, apart from paging (events_pager.js): the list is the
// recording's events merged in time order with the process starts and ends derived from
// the process table (`start`; `exit` for a non-zero status or a signal, `end` for any
// other end). The server derives them (web/API.md, GET /api/events), and the report
// embeds them; the page derives the same ends itself only for the chart's ticks
// (processEvents), since it has the process table anyway.

import { formatExit } from './format.js';
import { lowerBound, nearestIndex } from './search.js';

export const kHiddenByDefault = new Set(['start', 'end']);
// The kinds that come by the million; the others are few and all go on the chart.
export const kDenseKinds = new Set(['log', 'stdout', 'stderr', 'start', 'end']);
export const kFlagKinds = ['mark', 'signal', 'oom'];

export function isFailedExit(p) {
  return p.exit_signal != null || (p.exit_code != null && p.exit_code !== 0);
}

// A process's end time, or null while it still ran when the recording ended.
export function endTimeOf(p, recordingEndMs) {
  if (p.end_ms != null) return p.end_ms;
  if (p.last_ms != null && (recordingEndMs == null || p.last_ms < recordingEndMs)) return p.last_ms;
  return null;
}

// The derived lines, as the server derives them (same rule, same texts).
export function processEvents(processes, recordingEndMs) {
  const out = [];
  for (const p of processes) {
    const startT = p.start_ms ?? p.first_ms;
    if (startT != null) out.push({ t: startT, kind: 'start', process: p.id, text: commandText(p) });
    const endT = endTimeOf(p, recordingEndMs);
    if (endT == null && !isFailedExit(p)) continue;
    const exitText = formatExit(p.exit_code, p.exit_signal) || 'ended (status unknown)';
    out.push({ t: endT ?? p.last_ms, kind: isFailedExit(p) ? 'exit' : 'end', process: p.id, text: exitText });
  }
  return out.sort((a, b) => a.t - b.t);
}

function commandText(p) {
  return p.cmdline && p.cmdline.length ? p.cmdline.join(' ') : p.name;
}

// What the chart draws along its time axis: markers, OOM kills and signals (`flags`,
// the events of kFlagKinds, in time order), and process ends split into failed ones
// (red) and the others (faint). Never a tick per log line: there can be millions.
export function chartMarks(flagEvents, processItems) {
  const flags = flagEvents.filter((e) => kFlagKinds.includes(e.kind));
  const failed = [];
  const ended = [];
  for (const item of processItems) {
    if (item.kind === 'exit') failed.push(item.t);
    else if (item.kind === 'end') ended.push(item.t);
  }
  return { flags, failed, ended };
}

// The kinds parameter for a set of enabled kinds, in a stable order (the cache key).
export function kindsParam(enabled) {
  return [...enabled].sort().join(',');
}

// How many lines the enabled kinds hold, from per-kind counts (a Map).
export function countOf(counts, enabled) {
  let n = 0;
  for (const kind of enabled) n += counts.get(kind) || 0;
  return n;
}

// A line's first line, and how many more it has ("+3 lines"): a stack trace or a CMake
// trace entry shows as one row, whole in the detail box.
export function firstLine(text) {
  const s = text == null ? '' : String(text);
  const newline = s.indexOf('\n');
  if (newline < 0) return { line: s, more: 0 };
  let more = 0;
  for (let i = newline; i !== -1; i = s.indexOf('\n', i + 1)) more++;
  if (s.endsWith('\n')) more--;
  return { line: s.slice(0, newline).replace(/\r$/, ''), more };
}

// "app.log" for "/var/log/app.log" and "logs\\app.log".
export function baseName(path) {
  const s = String(path || '');
  const parts = s.split(/[/\\]/).filter(Boolean);
  return parts.length ? parts[parts.length - 1] : s;
}

// The report's stand-in for GET /api/events: the embedded lines (already in list
// order), filtered by kinds, sliced into pages, searched by time. Filters are cached
// (a few: the pane switches between a handful).
export class LocalEvents {
  constructor(events) {
    this.events = events;
    this.filters = new Map();
  }

  counts() {
    const counts = new Map();
    for (const e of this.events) counts.set(e.kind, (counts.get(e.kind) || 0) + 1);
    return counts;
  }

  // kinds: a kindsParam string, or null for every kind.
  filter(kinds) {
    const key = kinds == null ? '*' : kinds;
    let filter = this.filters.get(key);
    if (filter) return filter;
    const wanted = kinds == null ? null : new Set(kinds.split(',').filter(Boolean));
    const indices = [];
    for (let i = 0; i < this.events.length; i++) if (!wanted || wanted.has(this.events[i].kind)) indices.push(i);
    const times = new Float64Array(indices.length);
    for (let k = 0; k < indices.length; k++) times[k] = this.events[indices[k]].t;
    filter = { indices, times };
    if (this.filters.size >= 8) this.filters.delete(this.filters.keys().next().value);
    this.filters.set(key, filter);
    return filter;
  }

  page(kinds, offset, limit) {
    const { indices } = this.filter(kinds);
    const events = indices.slice(offset, offset + limit).map((i) => this.events[i]);
    return { total: indices.length, offset, events };
  }

  // The line nearest to t, the first of several at its time (0 when there is none), as
  // GET /api/events?at=.
  indexAt(kinds, t) {
    const { times } = this.filter(kinds);
    const nearest = nearestIndex(times, t);
    return { index: nearest < 0 ? 0 : lowerBound(times, times[nearest]), total: times.length };
  }
}
