// Onlooker's elements as canopy's process instances, numbered and linked as the
// recorder numbers and links the processes it sees:
// - Onlooker keys a process by (pid, ppid, name), so one element can hold several
//   processes that reused a PID under the same parent and name: each becomes its own
//   instance.
// - Onlooker sorts by (first sample, last sample, pid, ppid), which can put a child
//   before its parent: instances go in order of their first sample, every parent before
//   its children, and parents are resolved only once every element has been read, so
//   the order of the file changes neither the tree nor what `diff` finds.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "import/onlooker_file.h"

namespace canopy::importers {

struct OnlookerTree {
  std::vector<OnlookerProcess> processes;      // instances: by first sample, parents first
  std::vector<std::optional<size_t>> parents;  // each one's parent, an index into processes
};

// `rounds`: every distinct time of the file, sorted (Onlooker samples the whole tree at
// each round, stamping every entry with the round's time).
OnlookerTree build_onlooker_tree(std::vector<OnlookerProcess> elements, const std::vector<int64_t>& rounds);

}  // namespace canopy::importers
