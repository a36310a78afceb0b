// Process rows for the recordings unit tests write by hand.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>

#include "store/writer.h"

namespace canopy::testing {

// A process started at `start_ms` and seen then, its id given by `writer`. The caller
// sets its end and figures, then writes them with update_process_end.
inline store::ProcessRow add_started_process(store::Writer& writer, pid_t pid, std::optional<int64_t> parent,
                                             const char* name, int64_t start_ms) {
  store::ProcessRow row;
  row.pid = pid;
  row.start_ticks = pid;
  row.start_ms = start_ms;
  row.parent_id = parent;
  row.name = name;
  row.first_seen_ms = start_ms;
  row.last_seen_ms = start_ms;
  row.id = writer.add_process(row);
  return row;
}

}  // namespace canopy::testing
