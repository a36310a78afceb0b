// A process's memory by kind of mapping, from /proc/PID/smaps: what the heap, the
// stacks, files and anonymous memory hold of its resident set. A snapshot at one
// moment; a process that ends meanwhile gives nullopt.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace canopy::probe {

// What a mapping is, from its name in smaps. Threads' stacks other than the main one
// are anonymous mappings the kernel does not name (since Linux 4.5), so they count as
// anonymous; memory a program names with PR_SET_VMA_ANON_NAME ("[anon:name]") too.
enum class MappingKind { kHeap, kStack, kFile, kSharedMemory, kAnonymous, kKernel, kOther };
const char* mapping_kind_name(MappingKind kind);
MappingKind mapping_kind_of(std::string_view name);

struct MappingGroup {
  MappingKind kind = MappingKind::kOther;
  int64_t mappings = 0;
  int64_t size_bytes = 0;       // address space
  int64_t rss_bytes = 0;
  int64_t pss_bytes = 0;
  int64_t anonymous_bytes = 0;  // "Anonymous:", private pages not backed by a file
  int64_t swap_bytes = 0;
};

// Groups in MappingKind order, only the kinds present. Parses lines such as
//   7f1c2a000000-7f1c2a021000 rw-p 00000000 00:00 0                          [heap]
//   Rss:                 132 kB
std::vector<MappingGroup> parse_memory_map(std::string_view smaps_text);
std::optional<std::vector<MappingGroup>> read_memory_map(pid_t pid, const std::string& proc_root = "/proc");

}  // namespace canopy::probe
