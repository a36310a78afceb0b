// Stable colours: a process keeps its colour across zooms, metrics and reloads, a group
// (command name) keeps its colour across recordings. Hues are spread by the golden angle
// for process ids (neighbours in start order, which stack next to each other, get far
// apart hues) and by a string hash for names.

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

// Fill, edge and dimmed fill of a band on a light background.
// The "other" band (top_bands.js) is grey: it is no process of its own.
export function layerColors(key) {
  if (key === 'other') return { fill: 'hsl(0 0% 78%)', stroke: 'hsl(0 0% 52%)', dim: 'hsl(0 0% 92%)' };
  const hue = hueForKey(key).toFixed(1);
  return {
    fill: `hsl(${hue} 62% 68%)`,
    stroke: `hsl(${hue} 55% 42%)`,
    dim: `hsl(${hue} 12% 88%)`,
  };
}
