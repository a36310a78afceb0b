#include "symbolize/perf_map.h"

#include <charconv>
#include <optional>
#include <string_view>

namespace canopy::symbolize {
namespace {

std::optional<uint64_t> hex_field(std::string_view& line) {
  if (line.starts_with("0x") || line.starts_with("0X")) {
    line.remove_prefix(2);
  }
  uint64_t value = 0;
  auto [end, error] = std::from_chars(line.data(), line.data() + line.size(), value, 16);
  if (error != std::errc() || end == line.data() + line.size() || *end != ' ') {
    return std::nullopt;
  }
  line.remove_prefix(static_cast<size_t>(end - line.data()) + 1);
  return value;
}

}  // namespace

PerfMap::PerfMap(std::istream& lines) {
  for (std::string text; std::getline(lines, text);) {
    std::string_view line = text;
    if (line.ends_with('\r')) {
      line.remove_suffix(1);
    }
    std::optional<uint64_t> start = hex_field(line);
    std::optional<uint64_t> size = start ? hex_field(line) : std::nullopt;
    if (!size || *size == 0 || line.empty() || *start > UINT64_MAX - *size) {
      continue;
    }
    names_.emplace_back(line);
    paint(*start, *start + *size, names_.size() - 1);
  }
}

// Lays [start, end) over what is there: earlier pieces keep only what sticks out.
void PerfMap::paint(uint64_t start, uint64_t end, size_t name) {
  auto at = pieces_.lower_bound(start);
  if (at != pieces_.begin()) {
    auto before = std::prev(at);
    if (before->second.end > start) {
      if (before->second.end > end) {
        pieces_[end] = {before->second.end, before->second.name};
      }
      before->second.end = start;
    }
  }
  while (at != pieces_.end() && at->first < end) {
    if (at->second.end > end) {
      pieces_[end] = {at->second.end, at->second.name};
    }
    at = pieces_.erase(at);
  }
  pieces_[start] = {end, name};
}

const std::string* PerfMap::name_at(uint64_t address) const {
  auto after = pieces_.upper_bound(address);
  if (after == pieces_.begin()) {
    return nullptr;
  }
  auto piece = std::prev(after);
  return address < piece->second.end ? &names_[piece->second.name] : nullptr;
}

}  // namespace canopy::symbolize
