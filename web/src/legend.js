// The chart's legend: one entry per band of the legend (top_bands.js), largest first,
// each with its colour, label and share of the area in view. A click hides or shows the
// band; Shift+click (or the entry's "only" button) shows that band alone, and again
// shows every band.

import { el } from './dom.js';
import { layerColors } from './palette.js';

export class Legend {
  // handlers: onToggle(key), onIsolate(key)
  constructor(root, handlers) {
    this.root = root;
    this.handlers = handlers;
  }

  render(legend, hidden, describe) {
    const total = legend.reduce((sum, layer) => sum + layer.area, 0) || 1;
    this.root.replaceChildren(
      ...legend.map((layer) => {
        const off = hidden.has(layer.key);
        const share = `${Math.round((100 * layer.area) / total)}%`;
        const entry = el(
          'span',
          {
            className: `legend-entry${off ? ' off' : ''}`,
            role: 'button',
            tabindex: '0',
            'aria-pressed': String(!off),
            title: `${describe(layer)}\n${share} of the area in view · click hides or shows, Shift+click shows it alone`,
            dataset: { testid: 'legend-entry', key: layer.key },
            onclick: (e) => (e.shiftKey ? this.handlers.onIsolate(layer.key) : this.handlers.onToggle(layer.key)),
          },
          el('span', { className: 'legend-swatch', style: `background:${layerColors(layer.key).fill}` }),
          el('span', { className: 'legend-label', text: layer.label }),
          el('span', { className: 'legend-share muted', text: share }),
          el('button', {
            type: 'button',
            className: 'legend-only',
            title: 'show this band alone (again: show all)',
            dataset: { testid: 'legend-only' },
            text: 'only',
            onclick: (e) => {
              e.stopPropagation();
              this.handlers.onIsolate(layer.key);
            },
          }),
        );
        entry.addEventListener('keydown', (e) => {
          if (e.key === 'Enter' || e.key === ' ') {
            e.preventDefault();
            this.handlers.onToggle(layer.key);
          }
        });
        return entry;
      }),
    );
  }
}
