// The recording's processes as the page looks them up: the list (each process with its
// short command), by id and by command name. The App (controller.js) fills them at load
// and refills them on each live update (live_merge.js): the same array and maps, since
// the views were given them at load and keep them.

import { indexByName } from './groups.js';
import { shortCommand } from './short_command.js';

// Empties `index`'s list and maps and fills them from `processes`.
export function refillProcessIndex(index, processes) {
  // The short command of each process (short_command.js), once: labels, tooltip, panel.
  for (const p of processes) p.short = shortCommand(p.cmdline, p.name);
  index.processes.length = 0;
  for (const p of processes) index.processes.push(p);
  index.processById.clear();
  for (const p of processes) index.processById.set(p.id, p);
  index.idsByName.clear();
  for (const [name, ids] of indexByName(processes)) index.idsByName.set(name, ids);
}
