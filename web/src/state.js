// The page's shared state and who listens to it. Views subscribe and redraw what the
// changed keys touch; nothing else mutates the state (tests read it through
// window.canopyView.state).
//
//   metric       id of the metric the chart shows
//   grouped      bands per command name instead of per process
//   topN         how many bands the chart draws, the rest summed as "other" (0: all)
//   hidden       Set of the band keys the legend hid
//   showAvailable  the machine's MemAvailable line
//   view         {from, to}: the chart's visible window, ms since the epoch
//   hoverT       tick under the mouse, or null
//   selectedT    the pinned tick, or null
//   highlighted  null or {kind: 'process'|'group'|'subtree', key, label, ids}
//   eventKinds   Set of the event kinds the events pane lists

export function createStore(initial) {
  const state = { ...initial };
  const listeners = new Set();
  return {
    state,
    set(patch) {
      const changed = new Set();
      for (const [key, value] of Object.entries(patch)) {
        if (state[key] !== value) {
          state[key] = value;
          changed.add(key);
        }
      }
      if (changed.size) for (const listener of listeners) listener(changed, state);
    },
    subscribe(listener) {
      listeners.add(listener);
    },
  };
}
