// The events pane's timeline: the recording's events (/api/events, in time order) merged
// with events synthesised from the process list: `exit` for a process that exited with a
// non-zero status or was killed by a signal, and `start`/`end` for every start and every
// other end (hidden by default: a build has thousands). The pane filters by kind.

import { formatExit } from './format.js';
import { lowerBound, nearestIndex } from './search.js';

export const kHiddenByDefault = new Set(['start', 'end']);

export function isFailedExit(p) {
  return p.exit_signal != null || (p.exit_code != null && p.exit_code !== 0);
}

// A process's end time, or null while it still ran when the recording ended.
export function endTimeOf(p, recordingEndMs) {
  if (p.end_ms != null) return p.end_ms;
  if (p.last_ms != null && (recordingEndMs == null || p.last_ms < recordingEndMs)) return p.last_ms;
  return null;
}

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

// Merges two arrays sorted by t into one (stable: on equal t, `a` first). Linear, so a
// million log lines cost no sort.
export function mergeByTime(a, b) {
  const out = new Array(a.length + b.length);
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < a.length && j < b.length) out[k++] = b[j].t < a[i].t ? b[j++] : a[i++];
  while (i < a.length) out[k++] = a[i++];
  while (j < b.length) out[k++] = b[j++];
  return out;
}

export function countKinds(items) {
  const counts = new Map();
  for (const item of items) counts.set(item.kind, (counts.get(item.kind) || 0) + 1);
  return counts;
}

// The indices (into items) of the items whose kind is enabled, and their times, for the
// virtual list and for finding the line nearest to a time.
export function filterKinds(items, enabled) {
  const indices = [];
  for (let i = 0; i < items.length; i++) if (enabled.has(items[i].kind)) indices.push(i);
  const times = new Float64Array(indices.length);
  for (let k = 0; k < indices.length; k++) times[k] = items[indices[k]].t;
  return { indices, times };
}

// The line of the filtered list nearest to t (-1 when the list is empty). Of several lines
// at the same time the first is taken, so a click and the marker agree.
export function nearestLine(times, t) {
  const k = nearestIndex(times, t);
  if (k <= 0) return k;
  return lowerBound(times, times[k]);
}

// What the chart draws along its time axis: markers, OOM kills, signals, and process
// ends split into failed ones (red) and the others (faint).
export function chartMarks(items) {
  const flags = [];
  const failed = [];
  const ended = [];
  for (const item of items) {
    if (item.kind === 'mark' || item.kind === 'oom' || item.kind === 'signal') flags.push(item);
    else if (item.kind === 'exit') failed.push(item.t);
    else if (item.kind === 'end') ended.push(item.t);
  }
  return { flags, failed, ended };
}
