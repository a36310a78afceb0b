// A recording of three compiles, two of them each a target's "Unity/unity_0_cxx.cxx"
// of a CMake unity build, for the tests of the words that tell processes of one name
// apart (the viewer's labels, the exports' process names).
#pragma once

#include <string>

#include "store/writer.h"

namespace canopy::testing {

// pid 300: canopy_store.dir's unity source, 301: canopy_web.dir's, 302: src/json.cpp.
inline std::string write_unity_compiles(const std::string& path) {
  auto writer = store::Writer::create(path, false);
  if (!writer) {
    return writer.error().message;
  }
  writer->set_meta({.start_ms = 1000});
  const std::pair<pid_t, const char*> compiles[] = {{300, "/b/CMakeFiles/canopy_store.dir/Unity/unity_0_cxx.cxx"},
                                                    {301, "/b/CMakeFiles/canopy_web.dir/Unity/unity_0_cxx.cxx"},
                                                    {302, "/b/src/json.cpp"}};
  for (const auto& [pid, source] : compiles) {
    store::ProcessRow row;
    row.pid = pid;
    row.start_ticks = pid;
    row.start_ms = 1000;
    row.first_seen_ms = 1000;
    row.last_seen_ms = 1000;
    row.name = "cc1plus";
    row.cmdline = {"/usr/lib/gcc/x86_64-linux-gnu/12/cc1plus", "-quiet", source, "-o", "/tmp/cc.s"};
    writer->add_process(row);
  }
  store::TickRow tick;
  tick.t_ms = 1000;
  writer->add_tick(tick);
  return writer->finish() ? "" : "the recording did not finish";
}

}  // namespace canopy::testing
