// The page's keyboard shortcuts: Esc clears the pin and the highlight, ←/→ pan by a
// tenth of the view (Shift: a half), +/- zoom around its middle, 0 resets the zoom,
// g switches the grouping, w the clock, / goes to the search field. They act on the App
// (controller.js): its store, its bounds, its search field and its moves of the view
// (pan, setView, resetView), the same clamped moves the mouse makes.

import { zoomAround } from './zoom.js';

export function bindKeyboardShortcuts(app) {
  document.addEventListener('keydown', (e) => onKey(e, app));
}

function onKey(e, app) {
  // Escape everywhere, even in a field: the search field's own Escape stops it first.
  if (e.key === 'Escape') {
    app.store.set({ selectedT: null, highlighted: null });
    return;
  }
  // A key with a modifier is the browser's; typing and the lists' own arrow keys
  // (.vlist: the tree, the information panel, the events) are not shortcuts.
  if (e.ctrlKey || e.metaKey || e.altKey) return;
  const target = e.target;
  if (target.closest && target.closest('input, select, textarea, .vlist')) return;
  const { from, to } = app.bounds;
  const view = app.state.view;
  const middle = (view.from + view.to) / 2;
  const actions = {
    ArrowLeft: () => app.pan(e.shiftKey ? -0.5 : -0.1),
    ArrowRight: () => app.pan(e.shiftKey ? 0.5 : 0.1),
    '+': () => app.setView(zoomAround(view, middle, 0.5, from, to)),
    // The + key without Shift on most layouts.
    '=': () => app.setView(zoomAround(view, middle, 0.5, from, to)),
    '-': () => app.setView(zoomAround(view, middle, 2, from, to)),
    0: () => app.resetView(),
    g: () => app.store.set({ grouped: !app.state.grouped }),
    w: () => app.store.set({ clock: app.state.clock === 'wall' ? 'elapsed' : 'wall' }),
    '/': () => app.searchBox.focus(),
  };
  const action = actions[e.key];
  if (!action) return;
  e.preventDefault();
  action();
}
