#include "probe/running_tree.h"

#include <dirent.h>

#include <algorithm>

#include <charconv>
#include <fstream>
#include <sstream>

#include "common/scoped_resource.h"
#include "common/text.h"

namespace canopy::probe {
namespace {

std::optional<std::string> read_whole(const std::string& path) {
  std::ifstream file(path);
  if (!file) {
    return std::nullopt;
  }
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

std::optional<uint64_t> hex_number(std::string_view text) {
  uint64_t value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value, 16);
  if (error != std::errc() || end != text.data() + text.size()) {
    return std::nullopt;
  }
  return value;
}

}  // namespace

std::vector<pid_t> read_thread_ids(pid_t pid, const std::string& proc_root) {
  std::vector<pid_t> tids;
  ScopedDir dir(::opendir((proc_root + "/" + std::to_string(pid) + "/task").c_str()));
  if (!dir) {
    return tids;
  }
  while (dirent* entry = ::readdir(dir.get())) {
    if (auto tid = parse_int<pid_t>(entry->d_name)) {
      tids.push_back(*tid);
    }
  }
  // The leader first: it is the process, and outlives a thread read a moment too late.
  std::stable_partition(tids.begin(), tids.end(), [&](pid_t tid) { return tid == pid; });
  return tids;
}

std::vector<pid_t> read_descendants(pid_t root, const std::string& proc_root) {
  std::vector<pid_t> found;
  std::vector<pid_t> parents = {root};
  for (size_t next = 0; next < parents.size(); ++next) {
    const pid_t parent = parents[next];
    for (pid_t tid : read_thread_ids(parent, proc_root)) {
      auto text = read_whole(proc_root + "/" + std::to_string(parent) + "/task/" + std::to_string(tid) + "/children");
      std::istringstream words(text.value_or(""));
      std::string word;
      while (words >> word) {
        if (auto child = parse_int<pid_t>(word)) {
          found.push_back(*child);
          parents.push_back(*child);
        }
      }
    }
  }
  return found;
}

std::vector<ExecutableMapping> parse_executable_mappings(std::string_view maps_text) {
  std::vector<ExecutableMapping> mappings;
  size_t at = 0;
  while (at < maps_text.size()) {
    size_t line_end = maps_text.find('\n', at);
    std::string_view line = maps_text.substr(at, line_end == std::string_view::npos ? std::string_view::npos
                                                                                    : line_end - at);
    at = line_end == std::string_view::npos ? maps_text.size() : line_end + 1;
    // Five columns separated by single spaces, then padding and the path.
    std::string_view fields[5];
    size_t pos = 0;
    bool whole = true;
    for (auto& field : fields) {
      size_t space = line.find(' ', pos);
      if (space == std::string_view::npos) {
        whole = false;
        break;
      }
      field = line.substr(pos, space - pos);
      pos = space + 1;
    }
    size_t dash = fields[0].find('-');
    if (!whole || dash == std::string_view::npos || fields[1].size() < 3 || fields[1][2] != 'x') {
      continue;
    }
    auto start = hex_number(fields[0].substr(0, dash));
    auto end = hex_number(fields[0].substr(dash + 1));
    auto offset = hex_number(fields[2]);
    if (!start || !end || !offset || *end <= *start) {
      continue;
    }
    size_t path_at = line.find_first_not_of(' ', pos);
    std::string path = path_at == std::string_view::npos ? "" : std::string(line.substr(path_at));
    mappings.push_back({*start, *end, *offset, std::move(path)});
  }
  return mappings;
}

std::optional<std::vector<ExecutableMapping>> read_executable_mappings(pid_t pid, const std::string& proc_root) {
  auto text = read_whole(proc_root + "/" + std::to_string(pid) + "/maps");
  if (!text) {
    return std::nullopt;
  }
  return parse_executable_mappings(*text);
}

}  // namespace canopy::probe
