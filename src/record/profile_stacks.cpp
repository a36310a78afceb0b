#include "record/profile_stacks.h"

#include <functional>

#include "common/perf_map_path.h"

namespace canopy::record {
namespace {

// boost::hash_combine's mixing step, widened to 64 bits.
size_t mix_into(size_t seed, uint64_t value) {
  return seed ^ (std::hash<uint64_t>{}(value) + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2));
}

}  // namespace

size_t ProfileStacks::FrameKeyHash::operator()(const std::pair<int64_t, uint64_t>& key) const {
  return mix_into(std::hash<uint64_t>{}(key.second), static_cast<uint64_t>(key.first));
}

size_t ProfileStacks::StackKeyHash::operator()(const std::vector<int64_t>& frame_ids) const {
  size_t seed = frame_ids.size();
  for (int64_t id : frame_ids) {
    seed = mix_into(seed, static_cast<uint64_t>(id));
  }
  return seed;
}

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

int64_t ProfileStacks::unmapped_frame_id(pid_t pid, uint64_t address) {
  std::optional<int64_t> module;
  if (jit_maps_.has_map(pid)) {
    module = module_id(perf_map_path(pid), "");
  }
  return frame_id(module, address);
}

int64_t ProfileStacks::stack_id(const std::vector<int64_t>& frame_ids) {
  auto [known, added] = stacks_.try_emplace(frame_ids, 0);
  if (added) {
    known->second = writer_.add_heap_stack({0, frame_ids});
  }
  return known->second;
}

}  // namespace canopy::record
