#include "record/event_filter.h"

namespace canopy::record {

EventFilter::EventFilter(probe::ProcEventSocket& events, probe::TaskExitListener* exit_records, pid_t attach_root)
    : events_(events) {
  auto tree = probe::TreeFilter::create();
  // An attached tree is admitted both before the filter is in place and after. Before:
  // so that, from the first filtered fork on, the kernel admits the children of every
  // process the tree had. After: for a process forked in between, whose fork the filter
  // did not see, and those under it (admit_tree reads each one's children after
  // admitting it, so none is missed).
  if (tree && attach_root > 0) {
    tree->admit_tree(attach_root);
  }
  Status attached = tree ? tree->filter_process_events(events.fd()) : Status(tree.error());
  if (!attached) {
    // Still worth it: a machine's threads and renamings wake the recorder no more.
    description_ = "event kinds (" + attached.error().message + ")";
    if (auto kinds = events.drop_unused_kinds(); !kinds) {
      description_ = "none (" + kinds.error().message + ")";
    }
    return;
  }
  tree_.emplace(std::move(*tree));
  description_ = "tree";
  if (attach_root > 0) {
    tree_->admit_tree(attach_root);
  }
  if (exit_records) {
    // Without it the records are still right, only all of the machine's.
    if (auto records = tree_->filter_exit_records(exit_records->fd(), exit_records->family()); records) {
      exit_records_filtered_ = true;
    } else {
      description_ += " (exit records unfiltered: " + records.error().message + ")";
    }
  }
}

void EventFilter::write_start_meta(store::Writer& writer) const {
  writer.set_meta({.process_events_filter = description_});
}

void EventFilter::write_end_meta(store::Writer& writer) const {
  store::RecordingMeta meta;
  meta.process_events_received = events_.received();
  if (tree_) {
    meta.process_events_filtered = tree_->events_dropped();
  }
  if (exit_records_filtered_) {
    meta.exit_records_filtered = tree_->exit_records_dropped();
  }
  writer.set_meta(meta);
}

}  // namespace canopy::record
