// The stacks both profilers record (heap and CPU), deduplicated across them: one row
// per loaded object (path and build-id), per frame (object and address in its own
// address space), per stack (frame ids, innermost first), in the heap tables, which
// the CPU samples share. Rows go to the writer the first time they are seen.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "record/jit_symbol_maps.h"
#include "store/writer.h"

namespace canopy::record {

class ProfileStacks {
 public:
  explicit ProfileStacks(store::Writer& writer) : writer_(writer) {}
  ProfileStacks(const ProfileStacks&) = delete;
  ProfileStacks& operator=(const ProfileStacks&) = delete;

  int64_t module_id(const std::string& path, const std::string& build_id_hex);
  // `module_id` empty: an address in no loaded object (JIT code, a stray), kept absolute.
  int64_t frame_id(std::optional<int64_t> module_id, uint64_t address);
  // An address in no loaded object of process `pid`: in the module of the process's JIT
  // symbol map when it writes one (jit_symbol_maps.h), in no module otherwise.
  int64_t unmapped_frame_id(pid_t pid, uint64_t address);
  int64_t stack_id(const std::vector<int64_t>& frame_ids);

 private:
  // Every frame and stack of every sample is looked up here (some 20 frames a CPU
  // sample): hashed, not ordered, which a profile of the recorder showed costing a
  // tenth of its CPU profiling work in tree lookups. Ids come from the writer, so
  // nothing depends on the order.
  struct FrameKeyHash {
    size_t operator()(const std::pair<int64_t, uint64_t>& key) const;
  };
  struct StackKeyHash {
    size_t operator()(const std::vector<int64_t>& frame_ids) const;
  };

  store::Writer& writer_;
  JitSymbolMaps jit_maps_;
  std::map<std::pair<std::string, std::string>, int64_t> modules_;                  // (path, build-id)
  std::unordered_map<std::pair<int64_t, uint64_t>, int64_t, FrameKeyHash> frames_;  // (module or 0, address)
  std::unordered_map<std::vector<int64_t>, int64_t, StackKeyHash> stacks_;          // frame ids
};

}  // namespace canopy::record
