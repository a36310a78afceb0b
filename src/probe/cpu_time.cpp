#include "probe/cpu_time.h"

#include <algorithm>

namespace canopy::probe {

CpuTimeNs split_cpu_time(int64_t user_ticks, int64_t system_ticks, int64_t ticks_per_second,
                         std::optional<int64_t> leader_run_ns, const CpuTimeNs& previous) {
  const int64_t ns_per_tick = 1'000'000'000 / ticks_per_second;
  const int64_t ticks = user_ticks + system_ticks;
  int64_t total_ns = std::max(ticks * ns_per_tick, leader_run_ns.value_or(0));
  total_ns = std::max(total_ns, previous.user_ns + previous.system_ns);

  // With no tick sampled yet, the kernel too counts it all as user time.
  int64_t system_ns =
      ticks == 0 ? 0 : static_cast<int64_t>(static_cast<__int128>(total_ns) * system_ticks / ticks);
  system_ns = std::max(system_ns, previous.system_ns);
  int64_t user_ns = total_ns - system_ns;
  if (user_ns < previous.user_ns) {
    user_ns = previous.user_ns;
    system_ns = total_ns - user_ns;
  }
  return {user_ns, system_ns};
}

}  // namespace canopy::probe
