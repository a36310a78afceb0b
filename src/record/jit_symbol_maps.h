// Which processes of the tree write a JIT symbol map (common/perf_map_path.h). Their
// code outside every loaded object is recorded in the map's module, at its absolute
// address, for the symbolizer to name from the map's lines when the profile is read;
// other processes' such addresses stay in no module. A JIT writes its map as it starts
// (V8, CPython) or when told to (Java's perf-map-agent), and a PID may be reused: what
// was found for a process is looked at again once it is a second old.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <unordered_map>

namespace canopy::record {

class JitSymbolMaps {
 public:
  // Whether `pid` has a map: a regular file owned by root, by the user the recorder runs
  // as, or by the process's own user (anyone may create a name in /tmp, and another
  // user's file would name the code wrongly).
  bool has_map(pid_t pid);

 private:
  struct Seen {
    bool has_map = false;
    std::chrono::steady_clock::time_point at = {};
  };
  std::unordered_map<pid_t, Seen> seen_;
};

}  // namespace canopy::record
