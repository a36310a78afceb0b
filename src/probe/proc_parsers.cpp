#include "probe/proc_parsers.h"

#include <array>

#include "common/text.h"

namespace canopy::probe {
namespace {

// Reads the "Key:   123 kB" lines named by `keys` (as in status, meminfo, io,
// smaps_rollup) in one pass that stops once all are found: each value is scaled by
// 1024 when its line ends in "kB". False when a key is missing or its number is not
// one. (One scan per key from the top cost status about 14,000 instructions a read,
// which a process that runs and grows pays every tick.)
template <size_t N>
bool find_kb_fields(std::string_view text, const std::array<std::string_view, N>& keys, std::array<int64_t, N>& values) {
  std::array<bool, N> found{};
  size_t missing = N;
  while (missing > 0 && !text.empty()) {
    size_t eol = text.find('\n');
    std::string_view line = text.substr(0, eol);
    text.remove_prefix(eol == text.npos ? text.size() : eol + 1);
    size_t colon = line.find(':');
    if (colon == line.npos) {
      continue;
    }
    std::string_view key = line.substr(0, colon);
    for (size_t i = 0; i < N; ++i) {
      if (found[i] || key != keys[i]) {
        continue;
      }
      std::string_view rest = line.substr(colon + 1);
      auto value = parse_int<int64_t>(next_field(rest));
      if (!value) {
        return false;
      }
      values[i] = next_field(rest) == "kB" ? *value * 1024 : *value;
      found[i] = true;
      --missing;
      break;
    }
  }
  return missing == 0;
}

}  // namespace

std::optional<StatFields> parse_stat(std::string_view text) {
  size_t open = text.find('(');
  size_t close = text.rfind(')');
  if (open == text.npos || close == text.npos || close < open) {
    return std::nullopt;
  }
  StatFields f;
  std::string_view head = text.substr(0, open);
  auto pid = parse_int<pid_t>(next_field(head));
  if (!pid) {
    return std::nullopt;
  }
  f.pid = *pid;
  f.name = std::string(text.substr(open + 1, close - open - 1));

  // Fields after the name, numbered as in proc(5): 3 state, 4 ppid, ... 52; the last
  // one read is 28 (startstack).
  std::string_view rest = text.substr(close + 1);
  std::string_view fields[26];
  int count = 0;
  for (std::string_view field = next_field(rest); !field.empty() && count < 26; field = next_field(rest)) {
    fields[count++] = field;
  }
  if (count < 21) {  // need up to field 23 (vsize) = index 20
    return std::nullopt;
  }
  auto at = [&](int proc5_number) { return fields[proc5_number - 3]; };
  if (at(3).size() != 1) {
    return std::nullopt;
  }
  f.state = at(3)[0];
  auto ppid = parse_int<pid_t>(at(4));
  auto minflt = parse_int<int64_t>(at(10));
  auto majflt = parse_int<int64_t>(at(12));
  auto utime = parse_int<int64_t>(at(14));
  auto stime = parse_int<int64_t>(at(15));
  auto threads = parse_int<int64_t>(at(20));
  auto start = parse_int<int64_t>(at(22));
  auto vsize = parse_int<int64_t>(at(23));
  if (!ppid || !minflt || !majflt || !utime || !stime || !threads || !start || !vsize) {
    return std::nullopt;
  }
  f.ppid = *ppid;
  f.minor_faults = *minflt;
  f.major_faults = *majflt;
  f.user_ticks = *utime;
  f.system_ticks = *stime;
  f.threads = *threads;
  f.start_ticks = *start;
  f.vm_size_bytes = *vsize;
  if (count >= 26) {  // fields 26 and 28, printed by every kernel since 2.6
    f.start_code = parse_int<uint64_t>(at(26)).value_or(0);
    f.start_stack = parse_int<uint64_t>(at(28)).value_or(0);
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
