// The header: what was run, where, when, how it ended, and the headline figures.

import { el } from './dom.js';
import { formatAbsolute, formatBytes, formatDuration, formatExit, shellQuote } from './format.js';
import { drawableProfiles } from './profile_model.js';
import { treePeak } from './tree_model.js';

// `watched`: the page has followed the recording live (live.js), so once it has ended
// the header says the command ended while it watched.
export function renderHeader(root, recording, sourceKind, { watched = false } = {}) {
  const meta = recording.meta || {};
  const command = shellQuote(meta.command || []);
  const commandNode = root.querySelector('[data-testid="command"]');
  commandNode.textContent = command || '(unknown command)';
  commandNode.title = command; // the whole line, however long; CSS truncates the visible one

  const badges = root.querySelector('.badges');
  badges.replaceChildren();
  const ended = formatExit(meta.exit_code, meta.exit_signal);
  const failed = meta.exit_signal != null || (meta.exit_code != null && meta.exit_code !== 0);
  if (ended) badges.append(el('span', { className: `badge ${failed ? 'bad' : 'ok'}`, text: ended, 'data-testid': 'exit-badge' }));
  if (recording.live) {
    badges.append(el('span', {
      className: 'badge live',
      text: 'recording',
      title: 'The command is still running: the page follows the recording as the recorder writes it (about once a second).',
      'data-testid': 'live-badge',
    }));
  } else if (watched) {
    badges.append(el('span', {
      className: 'badge',
      text: 'ended',
      title: 'The command ended while this page followed it: the whole recording is shown.',
      'data-testid': 'ended-badge',
    }));
  }
  if (meta.interrupted) {
    badges.append(el('span', {
      className: 'badge warn',
      text: 'interrupted',
      title: 'The recorder stopped before the command ended (killed, or the machine went down): the recording ends at its last saved tick.',
      'data-testid': 'interrupted-badge',
    }));
  }
  if (sourceKind === 'embedded') badges.append(el('span', { className: 'badge', text: 'report', title: 'A self-contained report: data embedded at a fixed resolution' }));

  const duration = meta.start_ms != null && meta.end_ms != null ? meta.end_ms - meta.start_ms : null;
  const peak = treePeak(recording);
  const facts = [
    ['host', meta.host],
    ['started', formatAbsolute(meta.start_ms, meta.utc_offset_s), meta.timezone],
    ['duration', formatDuration(duration)],
    ['peak', peak && (peak.atLeast ? `≥ ${formatBytes(peak.bytes)}` : formatBytes(peak.bytes)),
      peak && peak.atLeast
        ? 'at least what one process held on its own, more than any tick saw of the whole tree: it peaked between ticks'
        : 'highest resident memory of the whole tree at one tick'],
    ['processes', String(recording.process_count ?? (recording.processes || []).length)],
    ['sampled every', meta.interval_ms != null ? `${meta.interval_ms} ms` : null],
    ['cwd', meta.cwd],
  ];
  const list = root.querySelector('[data-testid="facts"]');
  list.replaceChildren();
  for (const [name, value, title] of facts) {
    if (value == null) continue;
    list.append(el('div', { className: 'fact', title }, el('dt', { text: name }), el('dd', { text: value, title: name === 'cwd' ? value : null })));
  }
  const profilesLink = profilesFact(root, recording);
  if (profilesLink) list.append(profilesLink);
  document.title = `canopy: ${(meta.command || []).join(' ').slice(0, 80)}`;
}

// The profile panes sit below the page's first screen (profiles.css): say they are there,
// and take the reader to them.
function profilesFact(root, recording) {
  const { cpu, heap } = drawableProfiles(recording);
  if (!cpu && !heap) return null;
  const panes = root.querySelector('[data-testid="profiles"]');
  const link = el('button', {
    type: 'button',
    className: 'link',
    text: `${[cpu && 'CPU', heap && 'heap'].filter(Boolean).join(' and ')} ↓`,
    title: 'scroll down to the profile panes',
    'data-testid': 'profiles-link',
    onclick: () => panes && panes.scrollIntoView({ behavior: 'smooth' }),
  });
  return el('div', { className: 'fact' }, el('dt', { text: 'profiles' }), el('dd', {}, link));
}
