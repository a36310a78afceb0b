// The chart's axes: time on x (seconds since the recording's start, written in the
// page's time format, time_format.js), memory in binary units or CPU percent on y, with
// tick steps people read at a glance, and a title on each saying what and in which unit.

import { byteUnitFor, formatBytesIn } from './format.js';

// Seconds: sub-second steps for zoomed-in views, then clock-friendly ones.
const kElapsedIncrs = [
  0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600,
  900, 1800, 3600, 7200, 10800, 21600, 43200, 86400, 172800, 604800,
];

const kPercentIncrs = [0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 2500, 5000, 10000];

// Byte steps in the unit of the axis's top (MiB up to 1023.9 MiB, then GiB, ...): 1, 2,
// 2.5 and 5 times a power of ten of it, so a 4 GiB axis reads 0.5 GiB, 1 GiB, 1.5 GiB
// rather than 500 MiB ... 4000 MiB. Never below one byte.
export function byteIncrsFor(maxBytes) {
  const base = 1024 ** byteUnitFor(maxBytes);
  const incrs = [];
  for (let exponent = -3; exponent <= 3; exponent++) {
    for (const step of [1, 2, 2.5, 5]) {
      const incr = step * 10 ** exponent * base;
      if (incr >= 1) incrs.push(incr);
    }
  }
  return incrs;
}

// How many decimals an elapsed label needs so that ticks `incr` seconds apart differ.
export function elapsedDecimals(incrSeconds) {
  if (incrSeconds >= 1) return 0;
  return Math.min(3, Math.ceil(-Math.log10(incrSeconds) - 1e-9));
}

// Labels of x ticks `splits` (seconds since startMs) in the time format `time`.
export function timeLabels(splits, incrSeconds, time, startMs) {
  const decimals = elapsedDecimals(incrSeconds);
  return splits.map((s) => time.atShort(startMs + s * 1000, decimals));
}

// The y axis's title: the metric and its unit ("% of one core" for CPU: 100% is one core
// busy, the machine's ceiling is 100% per CPU).
export function yTitle(metricLabel, unit, cpuCount = null) {
  if (unit === 'percent') {
    const machine = cpuCount > 0 ? ` (${cpuCount} ${cpuCount === 1 ? 'CPU' : 'CPUs'}: ${cpuCount * 100}%)` : '';
    return `${metricLabel || 'CPU'}, % of one core${machine}`;
  }
  return `${metricLabel || 'memory'}, bytes (binary units)`;
}

export function yLabels(splits, unit, maxValue) {
  if (unit === 'percent') return splits.map((v) => `${+v.toFixed(1)}%`);
  const byteUnit = byteUnitFor(maxValue);
  return splits.map((v) => formatBytesIn(v, byteUnit));
}

export const kAxisFont = '11px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
const kAxisStroke = '#57606a';
const kGrid = { stroke: 'rgba(31, 35, 40, 0.07)', width: 1 };
const kTicks = { stroke: 'rgba(31, 35, 40, 0.25)', width: 1, size: 4 };

// unitOf(), timeOf() and the titles are read at draw time, so one chart serves every
// metric and clock. startMs: the time of x = 0.
export function makeAxes(unitOf, { timeOf, startMs, xTitle, yTitleOf }) {
  return [
    {
      scale: 'x',
      font: kAxisFont,
      stroke: kAxisStroke,
      grid: kGrid,
      ticks: kTicks,
      space: 70,
      incrs: kElapsedIncrs,
      values: (u, splits, axisIdx, space, incr) => timeLabels(splits, incr, timeOf(), startMs),
      label: () => xTitle(),
      labelSize: 18,
      labelFont: kAxisFont,
    },
    {
      scale: 'y',
      font: kAxisFont,
      stroke: kAxisStroke,
      grid: kGrid,
      ticks: kTicks,
      size: 68,
      space: 28,
      incrs: (u, axisIdx, min, max) => (unitOf() === 'percent' ? kPercentIncrs : byteIncrsFor(max)),
      values: (u, splits) => yLabels(splits, unitOf(), u.scales.y.max),
      label: () => yTitleOf(),
      labelSize: 18,
      labelFont: kAxisFont,
    },
  ];
}
