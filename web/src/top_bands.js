// Which bands the chart draws when there are more than a reader can tell apart: the N
// largest in the visible window, ordered by size (the largest at the bottom), and one
// "other" band on top that is, at every point, the sum of all the rest. Bands the
// legend hid are left out of the stack (and of "other"); the total line still counts
// them, so what is hidden shows as the gap between the stack and the total.
//
// Size is the area of a band over the points in view (the sum of its values there):
// a short spike and a long plateau of the same height are told apart, and a band that
// is not in view at all ranks last whatever it did elsewhere.

export const kOtherKey = 'other';
export const kDefaultTopN = 12;
export const kTopNChoices = [5, 8, 12, 20, 50, 0]; // 0: every band, no "other"

// The sum of a layer's values over points i0..i1 (inclusive).
export function areaInView(layer, i0, i1) {
  const from = Math.max(i0, layer.offset);
  const to = Math.min(i1, layer.offset + layer.values.length - 1);
  let sum = 0;
  for (let i = from; i <= to; i++) sum += layer.values[i - layer.offset] || 0;
  return sum;
}

// The bands of the legend and of the stack. The legend is the top n of `layers` by area
// in [i0, i1], largest first, then one "other" layer summing the rest when more than one
// is left (a lone rest band is shown as itself). n = 0 keeps every layer (still largest
// first). The stack is the legend without the hidden keys: hiding a band does not pull
// another into the top n, so the legend stays put while bands are toggled. Each layer
// carries `area`; "other" also `count`, how many bands it stands for.
export function topLayers(layers, { n = kDefaultTopN, i0 = 0, i1 = Infinity, hidden = null } = {}) {
  const position = new Map(layers.map((layer, k) => [layer.key, k]));
  const ranked = layers.map((layer) => ({ ...layer, area: areaInView(layer, i0, i1) }));
  // Largest first; ties in stacking order (start order), so the order is stable.
  ranked.sort((a, b) => b.area - a.area || position.get(a.key) - position.get(b.key));
  const legend = !(n > 0) || ranked.length <= n + 1 ? ranked : [...ranked.slice(0, n), sumLayers(ranked.slice(n))];
  const stacked = hidden && hidden.size ? legend.filter((layer) => !hidden.has(layer.key)) : legend;
  return { legend, stacked };
}

// One "other" layer: the point-by-point sum of `rest`, spanning from the first point of
// any of them to the last.
export function sumLayers(rest) {
  let offset = Infinity;
  let end = -Infinity;
  for (const layer of rest) {
    offset = Math.min(offset, layer.offset);
    end = Math.max(end, layer.offset + layer.values.length);
  }
  const values = new Array(Math.max(0, end - offset)).fill(0);
  const ids = [];
  let area = 0;
  for (const layer of rest) {
    for (let i = 0; i < layer.values.length; i++) values[layer.offset - offset + i] += layer.values[i] || 0;
    for (const id of layer.ids) ids.push(id);
    area += layer.area || 0;
  }
  const count = rest.length;
  return {
    key: kOtherKey,
    name: 'other',
    label: `other (${count} ${count === 1 ? 'band' : 'bands'})`,
    ids,
    count,
    area,
    offset: Number.isFinite(offset) ? offset : 0,
    values,
  };
}

// The legend's state after a click: `hide` toggles one key; `isolate` shows only that
// key (of `allKeys`), or everything again when it is the only one shown already.
export function toggleHidden(hidden, key) {
  const next = new Set(hidden);
  if (next.has(key)) next.delete(key);
  else next.add(key);
  return next;
}

export function isolate(hidden, key, allKeys) {
  const others = allKeys.filter((k) => k !== key);
  const isolated = !hidden.has(key) && others.every((k) => hidden.has(k));
  return isolated ? new Set() : new Set(others);
}
