#include "symbolize/heap_stack_names.h"

#include <cstdio>
#include <map>

#include "common/perf_map_path.h"
#include "common/text.h"

namespace canopy::symbolize {
namespace {

std::string hex_address(int64_t address) {
  char text[32];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(address));
  return text;
}

}  // namespace

HeapStackNames::HeapStackNames(const store::HeapProfile& profile) : profile_(profile) {
  for (const auto& stack : profile.stacks) {
    stacks_[stack.id] = &stack;
  }
  for (const auto& frame : profile.frames) {
    frames_[frame.id] = &frame;
  }
  for (const auto& module : profile.modules) {
    modules_[module.id] = &module;
  }
}

const std::vector<NamedFrame>& HeapStackNames::names_of(int64_t frame_id) {
  auto known = named_.find(frame_id);
  if (known != named_.end()) {
    return known->second;
  }
  std::vector<NamedFrame>& names = named_[frame_id];
  auto frame = frames_.find(frame_id);
  if (frame == frames_.end()) {
    names.push_back({"?", "", false});
    return names;
  }
  const store::HeapFrameRow& row = *frame->second;
  auto module = row.module_id ? modules_.find(*row.module_id) : modules_.end();
  if (module == modules_.end()) {
    names.push_back({"?", hex_address(row.rel_pc), false});  // in no loaded object: JIT code, or a stray
    return names;
  }
  ModuleRef ref{module->second->path, module->second->build_id};
  const bool jit = ref.build_id_hex.empty() && is_perf_map_path(ref.path);
  for (const SourceFrame& source : symbolizer_.resolve(ref, static_cast<uint64_t>(row.rel_pc), /*is_return_address=*/true)) {
    NamedFrame named{source.function.empty() ? "?" : source.function, "", source.inlined, source.file, source.line, jit};
    named.location = source.file.empty() ? path_base_name(ref.path) : path_base_name(source.file) + ":" + std::to_string(source.line);
    if (source.function.empty() && source.file.empty()) {
      named.address_in_object = hex_address(row.rel_pc);
    }
    names.push_back(std::move(named));
  }
  if (names.empty()) {
    ModuleState state = symbolizer_.module_state(ref);
    names.push_back({"?", path_base_name(ref.path) + "+" + hex_address(row.rel_pc) + " (" +
                              std::string(module_state_text(state)) + ")",
                     false, "", 0, jit});
  }
  return names;
}

ModuleState HeapStackNames::module_state(int64_t module_id) {
  auto module = modules_.find(module_id);
  if (module == modules_.end()) {
    return ModuleState::kMissing;
  }
  return symbolizer_.module_state({module->second->path, module->second->build_id});
}

std::vector<NamedFrame> HeapStackNames::frames(int64_t stack_id, size_t most) {
  std::vector<NamedFrame> out;
  auto stack = stacks_.find(stack_id);
  if (stack == stacks_.end()) {
    return out;
  }
  const std::vector<int64_t>& frame_ids = stack->second->frame_ids;
  for (size_t i = 0; i < frame_ids.size() && out.size() < most; ++i) {
    for (const NamedFrame& named : names_of(frame_ids[i])) {
      if (out.size() < most) {
        out.push_back(named);
      }
    }
  }
  return out;
}

std::unordered_map<int64_t, int64_t> HeapStackNames::stacks_that_read_alike() {
  // Each frame as a number that two frames which read alike share, then each stack as
  // its frames' numbers.
  std::map<std::string, int64_t> reading_number;
  std::unordered_map<int64_t, int64_t> frame_reading;  // frame id -> its reading's number
  for (const store::HeapFrameRow& frame : profile_.frames) {
    std::string reading;
    for (const NamedFrame& named : names_of(frame.id)) {
      reading += named.function + '\x1f' + named.location + '\x1f' + named.address_in_object + '\x1f' +
                 (named.inlined ? "i" : "") + '\x1e';
    }
    auto [number, added] = reading_number.try_emplace(reading, static_cast<int64_t>(reading_number.size()));
    frame_reading[frame.id] = number->second;
  }
  std::map<std::vector<int64_t>, int64_t> first_of_reading;
  std::unordered_map<int64_t, int64_t> aliases;
  for (const store::HeapStackRow& stack : profile_.stacks) {
    std::vector<int64_t> reading;
    reading.reserve(stack.frame_ids.size());
    for (int64_t frame_id : stack.frame_ids) {
      auto known = frame_reading.find(frame_id);
      // A frame the profile lacks reads like no other.
      reading.push_back(known != frame_reading.end() ? known->second : -1 - frame_id);
    }
    auto [first, added] = first_of_reading.try_emplace(std::move(reading), stack.id);
    if (!added) {
      aliases[stack.id] = first->second;
    }
  }
  return aliases;
}

}  // namespace canopy::symbolize
