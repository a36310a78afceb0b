#include "probe/memory_map.h"

#include <array>
#include <charconv>
#include <fstream>
#include <sstream>

#include "common/text.h"

namespace canopy::probe {
namespace {

constexpr size_t kKinds = static_cast<size_t>(MappingKind::kOther) + 1;

// "Rss:                 132 kB" -> 135168; nullopt for a line that is not "N kB".
std::optional<int64_t> kb_value(std::string_view rest) {
  rest = trim_spaces(rest);
  int64_t kb = 0;
  auto [end, error] = std::from_chars(rest.data(), rest.data() + rest.size(), kb);
  if (error != std::errc() || trim_spaces(std::string_view(end, rest.data() + rest.size() - end)) != "kB") {
    return std::nullopt;
  }
  return kb * 1024;
}

// The name column of a mapping's header line: what follows the five columns before
// it (address, permissions, offset, device, inode), spaces kept; "" when absent.
std::string_view mapping_name(std::string_view line) {
  for (int column = 0; column < 5; ++column) {
    if (next_field(line).empty()) {
      return {};
    }
  }
  return trim_spaces(line);
}

}  // namespace

const char* mapping_kind_name(MappingKind kind) {
  switch (kind) {
    case MappingKind::kHeap:
      return "heap";
    case MappingKind::kStack:
      return "stack";
    case MappingKind::kFile:
      return "file";
    case MappingKind::kSharedMemory:
      return "shared memory";
    case MappingKind::kAnonymous:
      return "anonymous";
    case MappingKind::kKernel:
      return "kernel";
    case MappingKind::kOther:
      return "other";
  }
  return "other";
}

MappingKind mapping_kind_of(std::string_view name) {
  if (name.empty() || name.starts_with("[anon:")) {
    return MappingKind::kAnonymous;
  }
  if (name == "[heap]") {
    return MappingKind::kHeap;
  }
  if (name == "[stack]" || name.starts_with("[stack:")) {
    return MappingKind::kStack;
  }
  if (name == "[vdso]" || name == "[vvar]" || name == "[vsyscall]" || name == "[vvar_vclock]") {
    return MappingKind::kKernel;
  }
  // POSIX and System V shared memory, and memfd_create's files, are files in name only.
  if (name.starts_with("/dev/shm/") || name.starts_with("/memfd:") || name.starts_with("/SYSV")) {
    return MappingKind::kSharedMemory;
  }
  if (name.starts_with("/")) {
    return MappingKind::kFile;
  }
  return MappingKind::kOther;
}

std::vector<MappingGroup> parse_memory_map(std::string_view smaps_text) {
  std::array<MappingGroup, kKinds> groups;
  for (size_t i = 0; i < kKinds; ++i) {
    groups[i].kind = static_cast<MappingKind>(i);
  }
  MappingGroup* current = nullptr;
  while (!smaps_text.empty()) {
    size_t newline = smaps_text.find('\n');
    std::string_view line = smaps_text.substr(0, newline);
    smaps_text = newline == std::string_view::npos ? std::string_view() : smaps_text.substr(newline + 1);
    size_t space = line.find(' ');
    std::string_view first = line.substr(0, space);
    if (first.empty()) {
      continue;
    }
    if (first.back() != ':') {  // a mapping's header: its address range has no colon
      current = &groups[static_cast<size_t>(mapping_kind_of(mapping_name(line)))];
      ++current->mappings;
      continue;
    }
    if (!current || space == std::string_view::npos) {
      continue;
    }
    int64_t MappingGroup::*field = nullptr;
    if (first == "Size:") {
      field = &MappingGroup::size_bytes;
    } else if (first == "Rss:") {
      field = &MappingGroup::rss_bytes;
    } else if (first == "Pss:") {
      field = &MappingGroup::pss_bytes;
    } else if (first == "Anonymous:") {
      field = &MappingGroup::anonymous_bytes;
    } else if (first == "Swap:") {
      field = &MappingGroup::swap_bytes;
    } else {
      continue;
    }
    if (auto bytes = kb_value(line.substr(space))) {
      current->*field += *bytes;
    }
  }
  std::vector<MappingGroup> present;
  for (const MappingGroup& group : groups) {
    if (group.mappings > 0) {
      present.push_back(group);
    }
  }
  return present;
}

std::optional<std::vector<MappingGroup>> read_memory_map(pid_t pid, const std::string& proc_root) {
  // Read whole, then parsed: smaps is generated as it is read, a few kB per mapping.
  std::ifstream file(proc_root + "/" + std::to_string(pid) + "/smaps");
  if (!file) {
    return std::nullopt;
  }
  std::ostringstream text;
  text << file.rdbuf();
  if (file.bad()) {
    return std::nullopt;
  }
  std::string smaps = std::move(text).str();
  if (smaps.empty()) {  // a zombie's smaps is empty
    return std::nullopt;
  }
  return parse_memory_map(smaps);
}

}  // namespace canopy::probe
