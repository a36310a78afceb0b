#include "probe/proc_parsers.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdint>
#include <cstring>

#include <string.h>  // memrchr

#include "common/text.h"

namespace canopy::probe {
namespace {

// A non-negative decimal at the start of [p, end): its value, and p moved past it.
// nullopt when no digit is there or the number is past int64's range. (Unsigned, so
// from_chars takes no sign.)
std::optional<int64_t> take_decimal(const char*& p, const char* end) {
  uint64_t value = 0;
  auto [after, error] = std::from_chars(p, end, value);
  if (error != std::errc() || value > uint64_t{INT64_MAX}) {
    return std::nullopt;
  }
  p = after;
  return static_cast<int64_t>(value);
}

// Past the spaces and tabs at the start of [p, end).
const char* skip_blanks(const char* p, const char* end) {
  while (p < end && (*p == ' ' || *p == '\t')) {
    ++p;
  }
  return p;
}

// The first four bytes of a "Key:" line as one word: with keys of three or more
// characters, four bytes (the colon included for a three-character key) tell most
// lines apart with one compare, before the whole key is.
uint32_t first_four(const char* bytes) {
  uint32_t word;
  std::memcpy(&word, bytes, sizeof word);
  return word;
}

// Reads the "Key:   123 kB" lines named by `keys` (as in status, meminfo, io,
// smaps_rollup; each key three characters or more) in one pass that stops once all are
// found: each value is scaled by 1024 when its line ends in "kB". False when a key is
// missing or its number is not one. Lines are told apart by their first four bytes,
// not by scanning for the colon: status is parsed whenever a process that runs grows,
// and scanning each key cost it about 5,700 instructions a read.
template <size_t N>
bool find_kb_fields(std::string_view text, const std::array<std::string_view, N>& keys, std::array<int64_t, N>& values) {
  std::array<uint32_t, N> prefixes;
  for (size_t i = 0; i < N; ++i) {
    char key_colon[4] = {};
    std::memcpy(key_colon, keys[i].data(), std::min<size_t>(keys[i].size(), 4));
    if (keys[i].size() == 3) {
      key_colon[3] = ':';
    }
    prefixes[i] = first_four(key_colon);
  }
  std::array<bool, N> found{};
  size_t missing = N;
  const char* p = text.data();
  const char* const end = p + text.size();
  while (missing > 0 && end - p >= 4) {
    const uint32_t head = first_four(p);
    const auto* eol = static_cast<const char*>(std::memchr(p, '\n', static_cast<size_t>(end - p)));
    if (!eol) {
      eol = end;
    }
    for (size_t i = 0; i < N; ++i) {
      const size_t size = keys[i].size();
      if (head != prefixes[i] || found[i] || static_cast<size_t>(eol - p) <= size || p[size] != ':' ||
          std::memcmp(p, keys[i].data(), size) != 0) {
        continue;
      }
      const char* q = skip_blanks(p + size + 1, eol);
      auto value = take_decimal(q, eol);
      if (!value) {
        return false;
      }
      q = skip_blanks(q, eol);
      const bool kilobytes = eol - q == 2 && q[0] == 'k' && q[1] == 'B';
      values[i] = kilobytes ? *value * 1024 : *value;
      found[i] = true;
      --missing;
      break;
    }
    p = eol + 1;
  }
  return missing == 0;
}

// The stat fields parse_stat reads, by proc(5) number (state, 3, is read apart):
// ppid, flags, minflt, majflt, utime, stime, num_threads, starttime, vsize, startcode,
// startstack.
constexpr uint32_t kStatFieldsRead = 1u << 4 | 1u << 9 | 1u << 10 | 1u << 12 | 1u << 14 | 1u << 15 | 1u << 20 |
                                     1u << 22 | 1u << 23 | 1u << 26 | 1u << 28;

}  // namespace

std::optional<StatFields> parse_stat(std::string_view text) {
  size_t open = text.find('(');
  // memrchr, not rfind: libstdc++'s rfind compares a character at a time, which cost
  // this parser a third of its instructions (the line is about 300 bytes).
  const auto* close_paren = static_cast<const char*>(::memrchr(text.data(), ')', text.size()));
  if (open == text.npos || !close_paren || close_paren < text.data() + open) {
    return std::nullopt;
  }
  const auto close = static_cast<size_t>(close_paren - text.data());
  StatFields f;
  std::string_view head = text.substr(0, open);
  auto pid = parse_int<pid_t>(next_field(head));
  if (!pid) {
    return std::nullopt;
  }
  f.pid = *pid;
  f.name = std::string(text.substr(open + 1, close - open - 1));

  // Fields after the name, numbered as in proc(5): 3 state, 4 ppid, ... 52; the last
  // one read is 28 (startstack). One pass over the characters, numbers read as they
  // are passed: a process that runs has its stat parsed every tick.
  const char* p = text.data() + close + 1;
  const char* const end = text.data() + text.size();
  int64_t numbers[29] = {};  // by proc(5) number; only the ones read below are set
  int last = 2;              // the number of the last field passed
  for (int number = 3; number <= 28; ++number) {
    while (p < end && *p == ' ') {
      ++p;
    }
    if (p == end || *p == '\n') {
      break;
    }
    if (number == 3) {
      f.state = *p++;
      if (p < end && *p != ' ' && *p != '\n') {
        return std::nullopt;  // a state is one letter
      }
    } else if ((1u << number) & kStatFieldsRead) {
      auto value = take_decimal(p, end);
      if (!value || (p < end && *p != ' ' && *p != '\n')) {
        return std::nullopt;
      }
      numbers[number] = *value;
    } else {
      while (p < end && *p != ' ' && *p != '\n') {
        ++p;
      }
    }
    last = number;
  }
  if (last < 23) {  // need up to field 23 (vsize)
    return std::nullopt;
  }
  f.ppid = static_cast<pid_t>(numbers[4]);
  f.flags = static_cast<uint32_t>(numbers[9]);
  f.minor_faults = numbers[10];
  f.major_faults = numbers[12];
  f.user_ticks = numbers[14];
  f.system_ticks = numbers[15];
  f.threads = numbers[20];
  f.start_ticks = numbers[22];
  f.vm_size_bytes = numbers[23];
  if (last == 28) {  // fields 26 and 28, printed by every kernel since 2.6
    f.start_code = static_cast<uint64_t>(numbers[26]);
    f.start_stack = static_cast<uint64_t>(numbers[28]);
  }
  return f;
}

std::optional<StatmFields> parse_statm(std::string_view text) {
  auto size = parse_int<int64_t>(next_field(text));
  auto resident = parse_int<int64_t>(next_field(text));
  auto shared = parse_int<int64_t>(next_field(text));
  if (!size || !resident || !shared) {
    return std::nullopt;
  }
  return StatmFields{*size, *resident, *shared};
}

std::optional<int64_t> parse_schedstat_run_ns(std::string_view text) {
  return parse_int<int64_t>(next_field(text));
}

std::optional<StatusFields> parse_status(std::string_view text) {
  // Kernel threads have no memory lines; a user process always has all of them.
  std::array<int64_t, 5> v{};
  if (!find_kb_fields(text, {"RssAnon", "RssFile", "RssShmem", "VmSwap", "VmHWM"}, v)) {
    return std::nullopt;
  }
  return StatusFields{v[0], v[1], v[2], v[3], v[4]};
}

std::optional<IoFields> parse_io(std::string_view text) {
  std::array<int64_t, 4> v{};
  if (!find_kb_fields(text, {"rchar", "wchar", "read_bytes", "write_bytes"}, v)) {
    return std::nullopt;
  }
  return IoFields{v[0], v[1], v[2], v[3]};
}

std::optional<SmapsRollupFields> parse_smaps_rollup(std::string_view text) {
  std::array<int64_t, 3> v{};
  if (!find_kb_fields(text, {"Pss", "Private_Clean", "Private_Dirty"}, v)) {
    return std::nullopt;
  }
  return SmapsRollupFields{v[0], v[1] + v[2]};
}

std::optional<MeminfoFields> parse_meminfo(std::string_view text) {
  std::array<int64_t, 4> v{};
  if (!find_kb_fields(text, {"MemTotal", "MemAvailable", "SwapTotal", "SwapFree"}, v)) {
    return std::nullopt;
  }
  return MeminfoFields{v[0], v[1], v[2], v[3]};
}

std::optional<int64_t> parse_vmstat_memory_moves(std::string_view text) {
  std::optional<int64_t> moves;
  while (!text.empty()) {
    size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text = end == text.npos ? std::string_view() : text.substr(end + 1);
    size_t space = line.find(' ');
    if (space == line.npos) {
      continue;
    }
    std::string_view key = line.substr(0, space);
    if (key.starts_with("pgsteal_") || key == "pswpout" || key == "thp_collapse_alloc" || key == "oom_kill") {
      if (auto count = parse_int<int64_t>(line.substr(space + 1))) {
        moves = moves.value_or(0) + *count;
      }
    }
  }
  return moves;
}

std::vector<pid_t> parse_children(std::string_view text) {
  std::vector<pid_t> pids;
  for (std::string_view field = next_field(text); !field.empty(); field = next_field(text)) {
    if (auto pid = parse_int<pid_t>(field)) {
      pids.push_back(*pid);
    }
  }
  return pids;
}

std::vector<std::string> parse_cmdline(std::string_view text) {
  std::vector<std::string> args;
  while (!text.empty()) {
    size_t nul = text.find('\0');
    args.emplace_back(text.substr(0, nul));
    if (nul == text.npos) {
      break;
    }
    text = text.substr(nul + 1);
  }
  return args;
}

}  // namespace canopy::probe
