// The viewer's LiveControl over the recorder's ProfilerSwitch (record/profiler_switch.h):
// the switch's answers as the JSON of web/API.md (/api/control). It lives here, where
// record --serve puts the two together, so that neither web/ nor record/ links the other.
#pragma once

#include "record/profiler_switch.h"
#include "web/live_control.h"

namespace canopy::cli {

class RecorderLiveControl final : public web::LiveControl {
 public:
  explicit RecorderLiveControl(record::ProfilerSwitch& profilers) : profilers_(profilers) {}

  Status set_heap_sampling(int64_t pid, bool on) override;
  Status take_heap_snapshot(int64_t pid) override;
  Result<nlohmann::json> take_memory_map(int64_t pid) override;
  nlohmann::json profiler_states() override;

 private:
  record::ProfilerSwitch& profilers_;
};

nlohmann::json memory_map_json(const record::MemoryMapSnapshot& snapshot);

}  // namespace canopy::cli
