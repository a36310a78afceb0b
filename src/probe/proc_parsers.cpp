#include "probe/proc_parsers.h"

#include "common/text.h"

namespace canopy::probe {
namespace {

// Finds "Key:" at the start of a line and returns the number after it, scaled by
// 1024 when the line ends in "kB" (as in status, meminfo, smaps_rollup).
std::optional<int64_t> find_kb_field(std::string_view text, std::string_view key) {
  size_t pos = 0;
  while (pos < text.size()) {
    size_t eol = text.find('\n', pos);
    std::string_view line = text.substr(pos, eol == text.npos ? text.npos : eol - pos);
    if (line.size() > key.size() && line.substr(0, key.size()) == key && line[key.size()] == ':') {
      std::string_view rest = line.substr(key.size() + 1);
      auto value = parse_int<int64_t>(next_field(rest));
      if (!value) {
        return std::nullopt;
      }
      return next_field(rest) == "kB" ? *value * 1024 : *value;
    }
    if (eol == text.npos) {
      break;
    }
    pos = eol + 1;
  }
  return std::nullopt;
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
  auto anon = find_kb_field(text, "RssAnon");
  auto file = find_kb_field(text, "RssFile");
  auto shmem = find_kb_field(text, "RssShmem");
  auto swap = find_kb_field(text, "VmSwap");
  auto hwm = find_kb_field(text, "VmHWM");
  if (!anon || !file || !shmem || !swap || !hwm) {
    return std::nullopt;
  }
  return StatusFields{*anon, *file, *shmem, *swap, *hwm};
}

std::optional<IoFields> parse_io(std::string_view text) {
  auto rchar = find_kb_field(text, "rchar");
  auto wchar = find_kb_field(text, "wchar");
  auto read_bytes = find_kb_field(text, "read_bytes");
  auto write_bytes = find_kb_field(text, "write_bytes");
  if (!rchar || !wchar || !read_bytes || !write_bytes) {
    return std::nullopt;
  }
  return IoFields{*rchar, *wchar, *read_bytes, *write_bytes};
}

std::optional<SmapsRollupFields> parse_smaps_rollup(std::string_view text) {
  auto pss = find_kb_field(text, "Pss");
  auto clean = find_kb_field(text, "Private_Clean");
  auto dirty = find_kb_field(text, "Private_Dirty");
  if (!pss || !clean || !dirty) {
    return std::nullopt;
  }
  return SmapsRollupFields{*pss, *clean + *dirty};
}

std::optional<MeminfoFields> parse_meminfo(std::string_view text) {
  auto total = find_kb_field(text, "MemTotal");
  auto available = find_kb_field(text, "MemAvailable");
  auto swap_total = find_kb_field(text, "SwapTotal");
  auto swap_free = find_kb_field(text, "SwapFree");
  if (!total || !available || !swap_total || !swap_free) {
    return std::nullopt;
  }
  return MeminfoFields{*total, *available, *swap_total, *swap_free};
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
