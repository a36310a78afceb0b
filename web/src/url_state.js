// The view choices kept in the page's URL (its #fragment, so they survive a reload, go
// along with a copied link and work from file:// for the HTML report): how many bands
// the chart shows (top), how bands are made (group: name or process) and the clock
// times are written in (clock: elapsed or wall).

import { kTopNChoices } from './top_bands.js';

// Reads `hash` ("#top=8&group=name"); a missing or unknown value is left out.
export function readUrlState(hash) {
  const params = new URLSearchParams(String(hash || '').replace(/^#/, ''));
  const state = {};
  const top = params.get('top');
  if (top === 'all') state.topN = 0;
  else if (top != null && /^\d+$/.test(top) && Number(top) > 0) state.topN = Number(top);
  const clock = params.get('clock');
  if (clock === 'elapsed' || clock === 'wall') state.clock = clock;
  const group = params.get('group');
  if (group === 'name') state.grouped = true;
  else if (group === 'process') state.grouped = false;
  return state;
}

export function writeUrlState({ topN, grouped, clock }) {
  const params = new URLSearchParams();
  params.set('top', topN > 0 ? String(topN) : 'all');
  params.set('group', grouped ? 'name' : 'process');
  if (clock === 'wall') params.set('clock', 'wall');
  return `#${params.toString()}`;
}

// The choices of the "bands" menu: the usual ones plus the URL's own value.
export function topNChoices(current) {
  const choices = [...kTopNChoices];
  if (!choices.includes(current)) choices.splice(choices.length - 1, 0, current);
  return choices.sort((a, b) => (a === 0) - (b === 0) || a - b);
}
