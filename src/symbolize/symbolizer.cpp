#include "symbolize/symbolizer.h"

#include "symbolize/module_file.h"
#include "symbolize/source_frames.h"

namespace canopy::symbolize {

std::string_view module_state_text(ModuleState state) {
  switch (state) {
    case ModuleState::kResolved:
      return "resolved";
    case ModuleState::kMissing:
      return "missing";
    case ModuleState::kBuildIdMismatch:
      return "build-id mismatch";
    case ModuleState::kNotElf:
      return "not ELF";
  }
  return "unknown";
}

Symbolizer::Symbolizer() = default;
Symbolizer::~Symbolizer() = default;

std::vector<SourceFrame> Symbolizer::resolve(const ModuleRef& module, uint64_t rel_pc, bool is_return_address) {
  ModuleFile& file = open_module(module);
  if (file.state() != ModuleState::kResolved) {
    return {};
  }
  // A return address is the instruction after the call, which may belong to the next
  // line, or to another inlined function; one byte back is inside the call.
  uint64_t pc = is_return_address && rel_pc > 0 ? rel_pc - 1 : rel_pc;
  return source_frames_at(file.dwfl_module(), pc);
}

ModuleState Symbolizer::module_state(const ModuleRef& module) { return open_module(module).state(); }

ModuleFile& Symbolizer::open_module(const ModuleRef& module) {
  auto key = std::make_pair(module.path, module.build_id_hex);
  auto it = modules_.find(key);
  if (it == modules_.end()) {
    it = modules_.emplace(std::move(key), std::make_unique<ModuleFile>(module)).first;
  }
  return *it->second;
}

}  // namespace canopy::symbolize
