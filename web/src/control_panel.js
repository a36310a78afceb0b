// The live control (web/API.md, /api/control): when the server records the tree it
// serves (record --serve), the information panel lists the tree's live processes with
// their profilers' states and the only buttons that change anything: heap sampling on
// or off, a heap snapshot now, the memory map now. A server without a control answers
// {"control": false} and nothing is shown; `report --html` never asks (no request
// leaves that page).

import { byTestId, el } from './dom.js';
import { formatBytes } from './format.js';

const kRefreshMs = 2000; // processes come and go while recording

// The memory map's groups as table rows: kind, then sizes as text, the largest resident
// first.
export function memoryMapRows(answer) {
  const groups = [...((answer && answer.groups) || [])].sort((a, b) => b.rss_bytes - a.rss_bytes);
  return groups.map((g) => [
    g.kind,
    String(g.mappings),
    formatBytes(g.rss_bytes),
    formatBytes(g.pss_bytes),
    formatBytes(g.anonymous_bytes),
    formatBytes(g.swap_bytes),
    formatBytes(g.size_bytes),
  ]);
}

async function answerOf(response) {
  let body = null;
  try {
    body = await response.json();
  } catch {
    // not JSON: the status line says it
  }
  if (!response.ok) throw new Error((body && body.error) || `${response.status} ${response.statusText}`);
  return body;
}

export class ControlPanel {
  // Asks the server whether it has a control; null when it has none or the page is the
  // HTML report.
  static async attach(root, source) {
    if (source.kind !== 'server') return null;
    let control;
    try {
      const response = await fetch('api/control', { headers: { Accept: 'application/json' } });
      control = await answerOf(response);
    } catch {
      return null; // a server of another version: no control, nothing to say
    }
    return control && control.control ? new ControlPanel(root, control) : null;
  }

  constructor(root, control) {
    this.token = control.token;
    this.node = el('div', { className: 'control-panel', dataset: { testid: 'control-panel' } },
      el('h3', { text: 'Live profilers' }),
      el('div', { className: 'control-rows', dataset: { testid: 'control-rows' } }),
      el('div', { className: 'muted control-status', dataset: { testid: 'control-status' } }),
      el('div', { className: 'control-map', dataset: { testid: 'control-map' } }));
    root.append(this.node);
    this.render(control.processes);
    this.timer = setInterval(() => this.refresh(), kRefreshMs);
  }

  async refresh() {
    try {
      const response = await fetch('api/control', { headers: { Accept: 'application/json' } });
      const control = await answerOf(response);
      if (!control.control) {
        this.ended();
        return;
      }
      this.render(control.processes);
    } catch (error) {
      this.status(`could not read the profilers' states: ${error.message}`);
    }
  }

  // The recording has ended (the page's live update says so, or the server): no process
  // is left to switch, and none is listed until the next refresh would have said so.
  ended() {
    clearInterval(this.timer);
    this.render([]);
  }

  render(processes) {
    const rows = byTestId('control-rows', this.node);
    if (!processes || !processes.length) {
      rows.replaceChildren(el('span', { className: 'muted', text: 'no live process' }));
      return;
    }
    rows.replaceChildren(...processes.map((p) => this.renderProcess(p)));
  }

  renderProcess(p) {
    const heapLoaded = p.heap === 'on' || p.heap === 'off';
    const button = (text, testid, action, disabled) =>
      el('button', { type: 'button', text, disabled: disabled || null, dataset: { testid }, onclick: () => action() });
    return el('div', { className: 'control-row', dataset: { testid: 'control-row', pid: String(p.pid), heap: p.heap } },
      el('span', { className: 'c-name', text: `${p.name} · ${p.pid}` }),
      el('span', { className: 'control-state', text: `heap ${p.heap} · CPU profile ${p.cpu}` }),
      button(p.heap === 'on' ? 'heap sampling off' : 'heap sampling on', 'control-heap-sampling',
        () => this.post(`heap-sampling?pid=${p.pid}&on=${p.heap === 'on' ? 0 : 1}`, `heap sampling of ${p.pid} turned ${p.heap === 'on' ? 'off' : 'on'}`), !heapLoaded),
      button('heap snapshot now', 'control-heap-snapshot',
        () => this.post(`heap-snapshot?pid=${p.pid}`, `heap snapshot of ${p.pid} asked: in the recording within its next commit`), !heapLoaded),
      button('memory map now', 'control-memory-map', () => this.memoryMap(p), false));
  }

  status(text) {
    byTestId('control-status', this.node).textContent = text;
  }

  async send(action) {
    const response = await fetch(`api/control/${action}`, {
      method: 'POST',
      headers: { Accept: 'application/json', 'X-Canopy-Token': this.token },
    });
    return answerOf(response);
  }

  async post(action, done) {
    try {
      await this.send(action);
      this.status(done);
    } catch (error) {
      this.status(error.message);
    }
    this.refresh();
  }

  async memoryMap(p) {
    try {
      const answer = await this.send(`memory-map?pid=${p.pid}`);
      const head = ['kind', 'mappings', 'resident', 'PSS', 'anonymous', 'swap', 'size'];
      const table = el('table', { className: 'control-map-table', dataset: { testid: 'control-map-table', pid: String(p.pid) } },
        el('caption', { text: `memory map of ${p.name} · ${p.pid}` }),
        el('tr', {}, ...head.map((h) => el('th', { text: h }))),
        ...memoryMapRows(answer).map((cells) => el('tr', {}, ...cells.map((c) => el('td', { text: c })))));
      byTestId('control-map', this.node).replaceChildren(table);
      this.status('');
    } catch (error) {
      this.status(error.message);
    }
  }
}
