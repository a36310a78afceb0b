// The recording's processes as the page looks them up: the list, by id and by command
// name. The App (controller.js) fills them at load and refills them on each live update
// (live_merge.js): the same array and maps, since the views were given them at load and
// keep them.

import { indexByName } from './groups.js';

// Empties `index`'s list and maps and fills them from `processes`.
export function refillProcessIndex(index, processes) {
  index.processes.length = 0;
  for (const p of processes) index.processes.push(p);
  index.processById.clear();
  for (const p of processes) index.processById.set(p.id, p);
  index.idsByName.clear();
  for (const [name, ids] of indexByName(processes)) index.idsByName.set(name, ids);
}

// A process's label: name, pid and its short command when it has one (the words that
// tell it from others of its name, "cc1plus 10913 src/json.cpp", which the server
// derives from its command line: src/common/short_command.h).
export function processLabel(process) {
  const head = `${process.name} ${process.pid}`;
  return process.short ? `${head} ${process.short}` : head;
}
