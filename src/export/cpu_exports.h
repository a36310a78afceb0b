// The CPU profile of a recording (record --cpu-profile) for other tools, with the
// selection `canopy profile` takes (analyze/cpu_profile.h: --pid, --command, --from,
// --to):
//   pprof      samples/count and cpu/nanoseconds per stack and process (labels pid and
//              command), period 1/HZ s of cpu, through the writer the heap profile
//              uses (pprof_profile.h); default sample type cpu.
//   collapsed  folded stacks, outermost first, and each stack's sample count, merged
//              over the processes selected (heap_collapsed.h's rules for names).
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "analyze/cpu_profile.h"
#include "common/result.h"
#include "store/reader.h"

namespace canopy::exporters {

Status write_cpu_pprof(const store::Reader& reader, const analyze::CpuSampleFilter& filter,
                       const std::function<void(std::string_view)>& out);
// Before gzip, for tests.
Result<std::string> cpu_pprof_profile(const store::Reader& reader, const analyze::CpuSampleFilter& filter);

Status write_cpu_collapsed(const store::Reader& reader, const analyze::CpuSampleFilter& filter,
                           const std::function<void(std::string_view)>& out);

}  // namespace canopy::exporters
