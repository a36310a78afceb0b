// Stable colours: a process keeps its colour across zooms, metrics and reloads, a group
// (command name) keeps its colour across recordings. Hues are spread by the golden angle
// for process ids (neighbours in start order, which stack next to each other, get far
// apart hues) and by a string hash for names.
//
// The golden angle brings ids a Fibonacci number apart back near the same hue: 21 apart
// are 7.7 degrees apart, 34 apart 4.7, 55 apart 2.9, and a build's stack often holds such
// pairs side by side. Four lightnesses, by id modulo 4, tell those apart (13, 21, 34, 42
// and 55 are not multiples of 4), in an order that puts ids 1 and 3 apart far apart in
// lightness: among ids up to 60 apart, the pairs too close to tell (CIE76 distance under
// 12) went from 7.4% to 1.1% (web/test/unit/palette.test.mjs).

const kGoldenAngle = 137.508;
// Process hues are rounded to 48 steps: the chart fills all bands of one colour in one
// call, and thousands of distinct colours would mean thousands of fills per frame.
const kHueStep = 7.5;

export function hueForId(id) {
  return Math.round(((id * kGoldenAngle) % 360) / kHueStep) * kHueStep % 360;
}

// FNV-1a, 32 bit: small, no dependency, spreads short names well.
export function hashString(text) {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

export function hueForName(name) {
  return (hashString(name) % 3600) / 10;
}

export function hueForKey(key) {
  if (key.startsWith('p:')) return hueForId(Number(key.slice(2)));
  return hueForName(key.slice(2));
}

// The fill's lightness, in percent: one of four, by id or by other bits of the name's hash.
const kLightnesses = [50, 70, 60, 80];

export function lightnessForKey(key) {
  const n = key.startsWith('p:') ? Number(key.slice(2)) : hashString(key.slice(2)) >>> 16;
  return kLightnesses[((n % 4) + 4) % 4];
}

// Fill, edge and dimmed fill of a band on a light background.
// The "other" band (top_bands.js) is grey: it is no process of its own.
export function layerColors(key) {
  if (key === 'other') return { fill: 'hsl(0 0% 78%)', stroke: 'hsl(0 0% 52%)', dim: 'hsl(0 0% 92%)' };
  const hue = hueForKey(key).toFixed(1);
  const lightness = lightnessForKey(key);
  return {
    fill: `hsl(${hue} 62% ${lightness}%)`,
    stroke: `hsl(${hue} 55% ${lightness - 26}%)`,
    dim: `hsl(${hue} 12% 88%)`,
  };
}
