// Where the profile panes get their data: `canopy view`'s /api/cpu/* and /api/heap/*
// (web/API.md), or what `report --html` embedded (summed here by profile_model.js, the
// same answers). A selection is the page's highlight (highlight.js) or null for the tree.

import { flameFromEntries, heapDiffFromImages, heapFlameFromImages, heatmapFromEntries } from './profile_model.js';

async function getJson(url) {
  const response = await fetch(url, { headers: { Accept: 'application/json' } });
  const body = await response.json().catch(() => null);
  if (!response.ok) throw new Error(body && body.error ? body.error : `${response.status} ${response.statusText}`);
  return body;
}

// The query a highlight stands for: one process, a command name, or a subtree.
export function selectionParams(highlight) {
  const params = new URLSearchParams();
  if (!highlight) return params;
  if (highlight.kind === 'group') params.set('name', highlight.key.slice(2));
  else if (highlight.kind === 'subtree') params.set('subtree', String(highlight.rootId));
  else params.set('process', String(highlight.rootId ?? highlight.ids[0]));
  return params;
}

export function profileSource(source) {
  return source.kind === 'embedded' ? new EmbeddedProfiles(source.payload) : new ServerProfiles();
}

class ServerProfiles {
  cpuHeatmap(highlight) {
    return getJson(`api/cpu/heatmap?${selectionParams(highlight)}`);
  }

  cpuFlame(highlight, fromMs, toMs) {
    const params = selectionParams(highlight);
    params.set('from', String(Math.floor(fromMs)));
    params.set('to', String(Math.ceil(toMs)));
    return getJson(`api/cpu/flame?${params}`);
  }

  heapFlame(processId, tMs) {
    return getJson(`api/heap/flame?process=${processId}&t=${Math.round(tMs)}`);
  }

  heapDiff(processId, fromMs, toMs) {
    return getJson(`api/heap/diff?process=${processId}&from=${Math.round(fromMs)}&to=${Math.round(toMs)}`);
  }
}

class EmbeddedProfiles {
  constructor(payload) {
    this.cpu = payload.cpu_profile || null;
    this.heap = payload.heap_profile || null;
  }

  async cpuHeatmap(highlight) {
    return heatmapFromEntries(this.cpu, highlight ? new Set(highlight.ids) : null);
  }

  async cpuFlame(highlight, fromMs, toMs) {
    return flameFromEntries(this.cpu, highlight ? new Set(highlight.ids) : null, fromMs, toMs);
  }

  async heapFlame(processId, tMs) {
    return heapFlameFromImages(this.heap, processId, tMs);
  }

  async heapDiff(processId, fromMs, toMs) {
    return heapDiffFromImages(this.heap, processId, fromMs, toMs);
  }
}
