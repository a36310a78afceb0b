// What of the machine's process events and exit records reaches the recorder. With
// CAP_BPF, the tree's only: the kernel drops every other process's before any wakeup
// (probe::TreeFilter). Without, the kinds of event the recorder uses, of every process
// on the machine, which it then sorts out itself.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>

#include "probe/proc_events.h"
#include "probe/task_exits.h"
#include "probe/tree_filter.h"
#include "store/writer.h"

namespace canopy::record {

class EventFilter {
 public:
  // Before the command starts, so that its fork admits it. In attach mode the process
  // attached to (`attach_root`; 0 in run mode) and those under it now are admitted.
  // `exit_records` may be null.
  EventFilter(probe::ProcEventSocket& events, probe::TaskExitListener* exit_records, pid_t attach_root);

  // process_events_filter ("tree", or "event kinds (WHY NOT THE TREE)"), and at the end
  // what reached the recorder and what the kernel dropped.
  void write_start_meta(store::Writer& writer) const;
  void write_end_meta(store::Writer& writer) const;

 private:
  probe::ProcEventSocket& events_;
  std::optional<probe::TreeFilter> tree_;
  std::string description_;
  bool exit_records_filtered_ = false;
};

}  // namespace canopy::record
