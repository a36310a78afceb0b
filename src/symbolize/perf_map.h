// A JIT's symbol map as perf reads it (common/perf_map_path.h): one line per piece of
// generated code, "START SIZE NAME", START and SIZE in hex (a "0x" is allowed), NAME the
// rest of the line ("JS:*fib /app/x.js:3:13" from V8, "py::fib:/app/x.py" from
// CPython). A JIT appends as it compiles, and code it dropped may be replaced by other
// code at the same addresses: a later line wins over the earlier ones it overlaps, as
// it is the newer code. A line that does not parse is skipped, as perf skips it.
#pragma once

#include <cstdint>
#include <istream>
#include <map>
#include <string>
#include <vector>

namespace canopy::symbolize {

class PerfMap {
 public:
  explicit PerfMap(std::istream& lines);

  // The name of the code at `address`; null when no line covers it.
  const std::string* name_at(uint64_t address) const;
  size_t names() const { return names_.size(); }

 private:
  struct Piece {
    uint64_t end;
    size_t name;  // in names_
  };
  void paint(uint64_t start, uint64_t end, size_t name);

  std::vector<std::string> names_;
  std::map<uint64_t, Piece> pieces_;  // by start, never overlapping
};

}  // namespace canopy::symbolize
