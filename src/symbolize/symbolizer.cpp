#include "symbolize/symbolizer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <optional>
#include <sstream>

#include "common/perf_map_path.h"
#include "symbolize/module_file.h"
#include "symbolize/perf_map.h"
#include "symbolize/source_frames.h"

namespace canopy::symbolize {
namespace {

bool is_perf_map(const ModuleRef& module) { return module.build_id_hex.empty() && is_perf_map_path(module.path); }

// A regular file's text; nothing for anything else: anyone may create a name in /tmp,
// and a FIFO there would hold the report forever.
std::optional<std::string> regular_file_text(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    return std::nullopt;
  }
  struct stat status {};
  std::optional<std::string> text;
  if (::fstat(fd, &status) == 0 && S_ISREG(status.st_mode)) {
    text.emplace();
    char buffer[65536];
    for (ssize_t got; (got = ::read(fd, buffer, sizeof buffer)) != 0;) {
      if (got < 0 && errno == EINTR) {
        continue;
      }
      if (got < 0) {
        text.reset();
        break;
      }
      text->append(buffer, static_cast<size_t>(got));
    }
  }
  ::close(fd);
  return text;
}

}  // namespace

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
  // A return address is the instruction after the call, which may belong to the next
  // line, or to another inlined function; one byte back is inside the call.
  uint64_t pc = is_return_address && rel_pc > 0 ? rel_pc - 1 : rel_pc;
  if (is_perf_map(module)) {
    const PerfMap* map = open_perf_map(module.path);
    if (!map) {
      return {};
    }
    const std::string* name = map->name_at(pc);
    return {SourceFrame{name ? *name : std::string(), "", 0, false}};
  }
  ModuleFile& file = open_module(module);
  if (file.state() != ModuleState::kResolved) {
    return {};
  }
  return source_frames_at(file, pc);
}

ModuleState Symbolizer::module_state(const ModuleRef& module) {
  if (is_perf_map(module)) {
    return open_perf_map(module.path) ? ModuleState::kResolved : ModuleState::kMissing;
  }
  return open_module(module).state();
}

ModuleFile& Symbolizer::open_module(const ModuleRef& module) {
  auto key = std::make_pair(module.path, module.build_id_hex);
  auto it = modules_.find(key);
  if (it == modules_.end()) {
    it = modules_.emplace(std::move(key), std::make_unique<ModuleFile>(module)).first;
  }
  return *it->second;
}

const PerfMap* Symbolizer::open_perf_map(const std::string& path) {
  auto [it, added] = perf_maps_.try_emplace(path);
  if (added) {
    if (std::optional<std::string> text = regular_file_text(path)) {
      std::istringstream lines(std::move(*text));
      it->second = std::make_unique<PerfMap>(lines);
    }
  }
  return it->second.get();
}

}  // namespace canopy::symbolize
