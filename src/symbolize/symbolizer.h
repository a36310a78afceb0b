// symbolize/ turns the frames the profilers record, (loaded ELF object, address in that
// file), into functions, file:line and inlined frames, offline, from the files on disk
// (libdw). Invariants: a file whose build-id is not the recorded one gives no names (a
// rebuilt binary would give wrong ones); a missing, foreign or corrupt file gives empty
// frames and a state saying why, never a crash. Each object is opened once per Symbolizer.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace canopy::symbolize {

// One function of a (possibly inlined) call chain at an address.
struct SourceFrame {
  std::string function;  // demangled; empty when no symbol covers the address
  std::string file;      // empty when there is no line info
  int line = 0;          // 0 when unknown
  bool inlined = false;  // true for a frame inlined into the next one
};

// A loaded ELF object as the recorder saw it: its path, and its GNU build-id as
// lowercase hex (empty when the object had none).
struct ModuleRef {
  std::string path;
  std::string build_id_hex;
};

// Why a module gives names, or does not.
enum class ModuleState {
  kResolved,          // the file at the path is the object that was loaded
  kMissing,           // no file at the path, or one we may not read
  kBuildIdMismatch,   // a file is there, but another build of it (or it has no build-id)
  kNotElf,            // not an ELF object, or a corrupt or truncated one
};

// "resolved", "missing", "build-id mismatch", "not ELF": for reports.
std::string_view module_state_text(ModuleState state);

class ModuleFile;
class PerfMap;

// Not thread-safe: one per thread that symbolizes. Separate debug info is found as gdb
// finds it: by build-id under /usr/lib/debug/.build-id (Debian's -dbgsym packages), then
// by .gnu_debuglink beside the file and under /usr/lib/debug. A module whose path is a
// JIT's perf map (common/perf_map_path.h) and which has no build-id is that map: its
// addresses are the process's own, and its names come from the map's lines.
class Symbolizer {
 public:
  Symbolizer();
  ~Symbolizer();
  Symbolizer(const Symbolizer&) = delete;
  Symbolizer& operator=(const Symbolizer&) = delete;

  // rel_pc is an address in the file's own virtual-address space (absolute pc minus the
  // object's load bias, dl_iterate_phdr's dlpi_addr). is_return_address: look up
  // rel_pc - 1, so that a call's line is reported, not the next line's.
  // Innermost first: inlined frames come before the function they were inlined into.
  // Empty when module_state() is not kResolved; otherwise at least one frame, whose
  // fields may be empty.
  std::vector<SourceFrame> resolve(const ModuleRef& module, uint64_t rel_pc, bool is_return_address);

  // Why a module gives no names.
  ModuleState module_state(const ModuleRef& module);

 private:
  ModuleFile& open_module(const ModuleRef& module);
  // Null when the map cannot be read.
  const PerfMap* open_perf_map(const std::string& path);

  // Keyed by (path, build-id): the same path recorded with two build-ids (a binary
  // rebuilt during the recording) is two modules, of which at most one resolves.
  std::map<std::pair<std::string, std::string>, std::unique_ptr<ModuleFile>> modules_;
  std::map<std::string, std::unique_ptr<PerfMap>> perf_maps_;  // null: not readable
};

}  // namespace canopy::symbolize
