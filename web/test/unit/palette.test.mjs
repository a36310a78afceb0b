import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hashString, hueForId, layerColors, lightnessForKey } from '../../src/palette.js';

test('colours are stable and neighbours in start order differ', () => {
  assert.equal(hashString(''), 0x811c9dc5);
  assert.equal(hashString('a'), 0xe40c292c); // FNV-1a reference value
  assert.deepEqual(layerColors('g:cc1plus'), layerColors('g:cc1plus'));
  // Golden-angle steps rounded to 7.5 degrees: 137.508 -> 135, 275.016 -> 277.5,
  // 412.524 - 360 = 52.524 -> 52.5.
  assert.equal(hueForId(1), 135);
  assert.equal(hueForId(2), 277.5);
  assert.equal(hueForId(3), 52.5);
  assert.notEqual(hueForId(41), hueForId(42));
});

// The CIE76 distance of two CSS "hsl(H S% L%)" colours, through sRGB and CIE Lab (D65).
function labOf(css) {
  const [h, s, l] = css.match(/[0-9.]+/g).map(Number);
  const a = (s / 100) * Math.min(l / 100, 1 - l / 100);
  const channel = (n) => {
    const k = (n + h / 30) % 12;
    const c = l / 100 - a * Math.max(-1, Math.min(k - 3, 9 - k, 1));
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  const [r, g, b] = [channel(0), channel(8), channel(4)];
  const f = (t) => (t > 0.008856 ? Math.cbrt(t) : 7.787 * t + 16 / 116);
  const x = f((r * 0.4124 + g * 0.3576 + b * 0.1805) / 0.95047);
  const y = f(r * 0.2126 + g * 0.7152 + b * 0.0722);
  const z = f((r * 0.0193 + g * 0.1192 + b * 0.9505) / 1.08883);
  return [116 * y - 16, 500 * (x - y), 200 * (y - z)];
}

test('ids a Fibonacci number apart, near in hue, differ in lightness', () => {
  const distance = (a, b) => {
    const [p, q] = [labOf(layerColors(`p:${a}`).fill), labOf(layerColors(`p:${b}`).fill)];
    return Math.hypot(p[0] - q[0], p[1] - q[1], p[2] - q[2]);
  };
  for (const apart of [13, 21, 34, 42, 55]) {
    // With one lightness, 34 and 55 apart could share a colour (distance 0).
    for (let id = 1; id <= 100; id++) assert.ok(distance(id, id + apart) >= 6, `ids ${id} and ${id + apart}`);
  }
  // Across ids up to 60 apart, few pairs are too close to tell (7.4% with one lightness).
  let close = 0;
  let pairs = 0;
  for (let a = 1; a <= 400; a++) {
    for (let b = a + 1; b <= Math.min(400, a + 60); b++) {
      pairs += 1;
      if (distance(a, b) < 12) close += 1;
    }
  }
  assert.ok(close / pairs < 0.02, `${((100 * close) / pairs).toFixed(2)}% of pairs too close`);
  assert.equal(lightnessForKey('g:cc1plus'), lightnessForKey('g:cc1plus'));
});
