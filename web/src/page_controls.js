// The page's controls around the views (index.html): the chart's toolbar (metric,
// grouping, MemAvailable, Reset, the range in view, the status line), the bands' count
// under the chart, the highlight pill and the wall-clock toggle at its foot, and the pin
// pill of the information panel. A control's change goes to the store; `follow` writes
// the store's values back, so that a key (g, w, Esc) or a click elsewhere shows here too.

import { byTestId } from './dom.js';
import { topNChoices } from './url_state.js';
import { isFullView } from './zoom.js';

export class PageControls {
  // options: metrics (the select's choices), unitOf(metric) ('bytes' or 'percent'),
  // time() the time format (time_format.js), bounds() the recording's span (a live
  // recording's grows), onReset() the Reset button's.
  constructor(store, options) {
    this.store = store;
    this.options = options;
    const state = store.state;
    const select = byTestId('metric-select');
    select.replaceChildren(...options.metrics.map((m) => new Option(m.label, m.id)));
    select.value = state.metric;
    select.addEventListener('change', () => store.set({ metric: select.value }));
    const group = byTestId('group-toggle');
    group.checked = state.grouped;
    group.addEventListener('change', () => store.set({ grouped: group.checked }));
    const top = byTestId('top-select');
    top.replaceChildren(...topNChoices(state.topN).map((n) => new Option(n > 0 ? `top ${n}` : 'all', String(n))));
    top.value = String(state.topN);
    top.addEventListener('change', () => store.set({ topN: Number(top.value) }));
    const clock = byTestId('clock-toggle');
    clock.checked = state.clock === 'wall';
    clock.addEventListener('change', () => store.set({ clock: clock.checked ? 'wall' : 'elapsed' }));
    const available = byTestId('available-toggle');
    available.addEventListener('change', () => store.set({ showAvailable: available.checked }));
    byTestId('reset-zoom').addEventListener('click', () => options.onReset());
    byTestId('unpin').addEventListener('click', () => store.set({ selectedT: null }));
    byTestId('clear-highlight').addEventListener('click', () => store.set({ highlighted: null }));
    this.syncAvailableToggle();
    this.renderPinned();
    this.renderViewRange();
  }

  // What each state change shows here.
  follow(changed) {
    const s = this.store.state;
    if (changed.has('metric')) {
      byTestId('metric-select').value = s.metric;
      this.syncAvailableToggle();
    }
    if (changed.has('grouped')) byTestId('group-toggle').checked = s.grouped;
    if (changed.has('topN')) byTestId('top-select').value = String(s.topN);
    if (changed.has('clock')) byTestId('clock-toggle').checked = s.clock === 'wall';
    if (changed.has('selectedT') || changed.has('clock')) this.renderPinned();
    if (changed.has('view') || changed.has('clock')) this.renderViewRange();
    if (changed.has('highlighted')) this.renderHighlight(s.highlighted);
  }

  // MemAvailable is the machine's memory: it has no place on a CPU chart.
  syncAvailableToggle() {
    const available = byTestId('available-toggle');
    const memory = this.options.unitOf(this.store.state.metric) === 'bytes';
    available.disabled = !memory;
    available.closest('label').title = memory ? "the machine's MemAvailable (not only this tree)" : 'not for CPU';
  }

  renderPinned() {
    const t = this.store.state.selectedT;
    const label = byTestId('pinned-time');
    const unpin = byTestId('unpin');
    label.closest('.pin-pill').classList.toggle('pinned', t != null);
    if (t == null) {
      label.textContent = 'click the chart to pin a time';
      label.classList.add('muted');
      delete label.dataset.t;
      unpin.hidden = true;
    } else {
      label.textContent = `pinned at ${this.options.time().at(t)}`;
      label.classList.remove('muted');
      label.dataset.t = String(t);
      unpin.hidden = false;
    }
  }

  renderViewRange() {
    const { view } = this.store.state;
    const bounds = this.options.bounds();
    const time = this.options.time();
    const full = isFullView(view, bounds.from, bounds.to);
    const decimals = view.to - view.from < 10000 ? 3 : 0;
    const text = full
      ? `${time.atShort(bounds.from, 0)} – ${time.atShort(bounds.to, decimals)}`
      : `${time.atShort(view.from, decimals)} – ${time.atShort(view.to, decimals)}`;
    const range = byTestId('view-range');
    range.textContent = full ? text : `zoomed ${text}`;
    range.title = full ? 'the whole run' : 'the visible part of the run';
    byTestId('reset-zoom').disabled = full;
  }

  renderHighlight(highlight) {
    const label = byTestId('highlight-label');
    label.hidden = !highlight;
    byTestId('highlight-text').textContent = highlight ? highlight.label : '';
    label.title = highlight && highlight.title ? highlight.title : '';
  }

  setStatus(text, isError = false) {
    const status = byTestId('status');
    status.textContent = text;
    status.classList.toggle('error', isError);
  }
}
