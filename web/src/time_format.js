// One way to write a moment of the recording, used by every part of the page (the
// chart's axis and tooltip, the information panel, the events pane, the pinned time and
// the visible range), in one of two clocks:
//   elapsed  time since the recording's start: "m:ss.mmm", "h:mm:ss.mmm" from 1 h on;
//   wall     the wall clock where the recording was made, at the UTC offset it recorded
//            at its start: "hh:mm:ss.mmm", to set beside logs and dashboards.
// A moment is written to the millisecond; the axis writes only the decimals its tick
// step needs (the same form, shorter).

import { formatElapsed } from './format.js';

export const kClocks = ['elapsed', 'wall'];

// "+01:00" for 3600 s.
export function formatOffset(utcOffsetS) {
  const offset = utcOffsetS || 0;
  const sign = offset < 0 ? '-' : '+';
  const hh = String(Math.floor(Math.abs(offset) / 3600)).padStart(2, '0');
  const mm = String(Math.floor((Math.abs(offset) % 3600) / 60)).padStart(2, '0');
  return `${sign}${hh}:${mm}`;
}

// "14:03:07.250": the time of day at the offset, with `decimals` digits of the second.
export function formatWall(tMs, utcOffsetS, decimals = 3) {
  const scale = 10 ** (3 - decimals);
  const rounded = Math.round((tMs + (utcOffsetS || 0) * 1000) / scale) * scale;
  const iso = new Date(rounded).toISOString(); // shifted by the offset: read it as local
  return iso.slice(11, decimals > 0 ? 20 + decimals : 19);
}

// {clock, at(tMs), atShort(tMs, decimals), title}: `at` for a moment, `atShort` for an
// axis label, `title` names the clock and its unit for the axis.
export function timeFormat({ clock = 'elapsed', startMs = 0, utcOffsetS = 0, timezone = null } = {}) {
  if (clock === 'wall') {
    const zone = timezone ? `${timezone}, UTC${formatOffset(utcOffsetS)}` : `UTC${formatOffset(utcOffsetS)}`;
    return {
      clock,
      at: (tMs) => formatWall(tMs, utcOffsetS, 3),
      atShort: (tMs, decimals) => formatWall(tMs, utcOffsetS, decimals),
      title: `wall clock (${zone}), hh:mm:ss`,
    };
  }
  return {
    clock: 'elapsed',
    at: (tMs) => formatElapsed(tMs - startMs, 3),
    atShort: (tMs, decimals) => formatElapsed(tMs - startMs, decimals),
    title: 'time since the start, m:ss',
  };
}
