#include "record/profile_stacks.h"

namespace canopy::record {

int64_t ProfileStacks::module_id(const std::string& path, const std::string& build_id_hex) {
  auto [known, added] = modules_.try_emplace({path, build_id_hex}, 0);
  if (added) {
    known->second = writer_.add_heap_module({0, path, build_id_hex});
  }
  return known->second;
}

int64_t ProfileStacks::frame_id(std::optional<int64_t> module_id, uint64_t address) {
  auto [known, added] = frames_.try_emplace({module_id.value_or(0), address}, 0);
  if (added) {
    known->second = writer_.add_heap_frame({0, module_id, static_cast<int64_t>(address)});
  }
  return known->second;
}

int64_t ProfileStacks::stack_id(const std::vector<int64_t>& frame_ids) {
  auto [known, added] = stacks_.try_emplace(frame_ids, 0);
  if (added) {
    known->second = writer_.add_heap_stack({0, frame_ids});
  }
  return known->second;
}

}  // namespace canopy::record
