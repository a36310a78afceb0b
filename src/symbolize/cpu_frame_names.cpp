#include "symbolize/cpu_frame_names.h"

namespace canopy::symbolize {

// names_ keeps pointers into stacks_, which is initialized first (declared first).
CpuFrameNames::CpuFrameNames(const store::CpuProfile& profile)
    : stacks_(store::stack_tables_of(profile)), names_(stacks_) {}

const std::vector<std::string>& CpuFrameNames::names_of(int64_t frame_id) {
  auto known = named_.find(frame_id);
  if (known != named_.end()) {
    return known->second;
  }
  std::vector<std::string>& names = named_[frame_id];
  for (const NamedFrame& frame : names_.names_of(frame_id)) {
    names.push_back(display_name(frame));
  }
  return names;
}

}  // namespace canopy::symbolize
