#include "unwind/frame_pointer_join.h"

namespace canopy::unwind {

// The walk's first entry is the sampled pc; each next is the return address stored in
// the record rbp points at, rbp then becoming the record's saved rbp. A frame whose rbp
// differs from its caller's is one that saved its caller's rbp and set up a record:
// the caller's pc (the return address) is the walk's next entry. Frames whose rbp is
// their caller's have no record, and the walk has no entry for their return address.
std::optional<size_t> frame_pointer_walk_resumes_at(std::span<const UnwoundFrame> dwarf,
                                                    std::span<const uint64_t> walk) {
  size_t held = 0;  // the walk's index of the last DWARF frame it holds; 0: none yet
  for (size_t i = 1; i < dwarf.size(); ++i) {
    if (!dwarf[i].rbp || !dwarf[i - 1].rbp) {
      return std::nullopt;
    }
    if (*dwarf[i].rbp == *dwarf[i - 1].rbp) {
      continue;
    }
    ++held;
    if (held >= walk.size() || walk[held] != dwarf[i].pc) {
      return std::nullopt;
    }
  }
  if (held == 0) {
    return std::nullopt;
  }
  return held + 1;
}

}  // namespace canopy::unwind
