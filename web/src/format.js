// Pure formatting of the recording's units for people: bytes in binary units (as the
// terminal report prints them), CPU percent, elapsed time from the recording's start,
// and absolute times in the recording's own UTC offset (not the viewer's).

const kUnits = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];

// "365.6 MiB": one decimal above bytes, like `canopy report`.
export function formatBytes(bytes) {
  if (bytes == null || !Number.isFinite(bytes)) return '—';
  const sign = bytes < 0 ? '-' : '';
  let value = Math.abs(bytes);
  let unit = 0;
  while (value >= 1024 && unit < kUnits.length - 1) {
    value /= 1024;
    unit++;
  }
  if (unit === 0) return `${sign}${Math.round(value)} B`;
  // 1023.96 MiB would print as "1024.0 MiB": carry it to the next unit instead.
  if (value.toFixed(1) === '1024.0' && unit < kUnits.length - 1) return `${sign}1.0 ${kUnits[unit + 1]}`;
  return `${sign}${value.toFixed(1)} ${kUnits[unit]}`;
}

// The binary unit of a value (0 = B, 1 = KiB, 2 = MiB, ...): an axis takes the unit of
// its top for all its labels, so they read alike ("0.5 GiB", "1 GiB", "1.5 GiB").
export function byteUnitFor(bytes) {
  let unit = 0;
  while (bytes >= 1024 && unit < kUnits.length - 1) {
    bytes /= 1024;
    unit++;
  }
  return unit;
}

export function formatBytesIn(bytes, unit) {
  if (bytes === 0) return '0';
  const value = bytes / 1024 ** unit;
  const text = Number.isInteger(value) ? String(value) : String(+value.toFixed(3));
  return `${text} ${kUnits[unit]}`;
}

export function formatPercent(percent) {
  if (percent == null || !Number.isFinite(percent)) return '—';
  if (percent !== 0 && Math.abs(percent) < 10) return `${percent.toFixed(1)}%`;
  return `${Math.round(percent)}%`;
}

// Elapsed time: "m:ss" under an hour, "h:mm:ss" from one hour on; `decimals` adds the
// fraction of a second ("0:01.25") for zoomed-in axes and exact event times.
export function formatElapsed(ms, decimals = 0) {
  const sign = ms < 0 ? '-' : '';
  const scale = 10 ** decimals;
  const total = Math.round((Math.abs(ms) / 1000) * scale); // in units of 10^-decimals s
  const wholeSeconds = Math.floor(total / scale);
  const fraction = total - wholeSeconds * scale;
  const h = Math.floor(wholeSeconds / 3600);
  const m = Math.floor((wholeSeconds % 3600) / 60);
  const s = wholeSeconds % 60;
  const ss = String(s).padStart(2, '0') + (decimals > 0 ? '.' + String(fraction).padStart(decimals, '0') : '');
  return h > 0 ? `${sign}${h}:${String(m).padStart(2, '0')}:${ss}` : `${sign}${m}:${ss}`;
}

// A length of time for the header and the tree: "2.03 s", "4 min 03 s", "1 h 02 min".
export function formatDuration(ms) {
  if (ms == null || !Number.isFinite(ms)) return '—';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60000) return `${(ms / 1000).toFixed(ms < 10000 ? 2 : 1)} s`;
  const seconds = Math.round(ms / 1000);
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ${String(seconds % 60).padStart(2, '0')} s`;
  const minutes = Math.round(seconds / 60);
  return `${Math.floor(minutes / 60)} h ${String(minutes % 60).padStart(2, '0')} min`;
}

// CPU time (ns) as seconds: "0.142 s", "12.3 s", "1 h 02 min".
export function formatCpuTime(ns) {
  if (ns == null || !Number.isFinite(ns)) return '—';
  const ms = ns / 1e6;
  if (ms < 10000) return `${(ms / 1000).toFixed(3)} s`;
  return formatDuration(ms);
}

// "2026-11-22 10:15:00 +01:00": the wall clock where the recording was made.
export function formatAbsolute(tMs, utcOffsetS) {
  if (tMs == null) return '—';
  const offset = utcOffsetS || 0;
  const iso = new Date(tMs + offset * 1000).toISOString(); // shifted, so read it as "UTC"
  const sign = offset < 0 ? '-' : '+';
  const hh = String(Math.floor(Math.abs(offset) / 3600)).padStart(2, '0');
  const mm = String(Math.floor((Math.abs(offset) % 3600) / 60)).padStart(2, '0');
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)} ${sign}${hh}:${mm}`;
}

// A command line as a shell would take it back, on one line: words with nothing special
// stay bare, others are single-quoted ('it'\''s'), and a word with a control character
// (python3 -c's newlines) is $'...' with it escaped. Same rule as the terminal report
// (src/common/process_words.h).
export function shellQuote(argv) {
  return (argv || []).map(quoteWord).join(' ');
}

const kEscapes = { '\\': '\\\\', "'": "\\'", '\n': '\\n', '\t': '\\t', '\r': '\\r', '\x1b': '\\e', '\x07': '\\a' };

function quoteWord(word) {
  if (word === '') return "''";
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(word)) return word;
  if (/[\x00-\x1f\x7f]/.test(word)) {
    const escape = (c) => kEscapes[c] || `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`;
    return `$'${word.replace(/[\\'\x00-\x1f\x7f]/g, escape)}'`;
  }
  return `'${word.replace(/'/g, "'\\''")}'`;
}

const kSignals = [null, 'SIGHUP', 'SIGINT', 'SIGQUIT', 'SIGILL', 'SIGTRAP', 'SIGABRT', 'SIGBUS',
  'SIGFPE', 'SIGKILL', 'SIGUSR1', 'SIGSEGV', 'SIGUSR2', 'SIGPIPE', 'SIGALRM', 'SIGTERM',
  'SIGSTKFLT', 'SIGCHLD', 'SIGCONT', 'SIGSTOP', 'SIGTSTP', 'SIGTTIN', 'SIGTTOU', 'SIGURG',
  'SIGXCPU', 'SIGXFSZ', 'SIGVTALRM', 'SIGPROF', 'SIGWINCH', 'SIGIO', 'SIGPWR', 'SIGSYS'];

export function signalName(signal) {
  return kSignals[signal] || `signal ${signal}`;
}

// How a process ended, in a few words; null when nothing is known.
export function formatExit(exitCode, exitSignal) {
  if (exitSignal != null) return `killed by ${signalName(exitSignal)}`;
  if (exitCode != null) return `exit ${exitCode}`;
  return null;
}
