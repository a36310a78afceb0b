// `canopy profile RECORDING`: the CPU profile's top functions (analyze/cpu_profile.h),
// named by symbolize/ and printed by report/.
#include <cstdio>

#include "analyze/cpu_profile.h"
#include "cli/commands.h"
#include "cli/time_range.h"
#include "common/terminal_text.h"
#include "common/text.h"
#include "report/cpu_profile_format.h"
#include "store/reader.h"
#include "symbolize/cpu_frame_names.h"

namespace canopy::cli {

int run_profile_command(const ProfileOptions& options) {
  int exit_status = 0;
  auto reader = open_recording_in_range(options.path, options.from_ms, options.to_ms, exit_status);
  if (!reader) {
    return exit_status;
  }
  analyze::CpuSampleFilter filter{options.pid, options.command};
  if (options.from_ms >= 0) {
    filter.from_ms = options.from_ms;
  }
  if (options.to_ms >= 0) {
    filter.to_ms = options.to_ms;
  }
  auto selection = analyze::select_cpu_samples(*reader, filter);
  if (!selection) {
    print_error(selection.error().message);
    return 1;
  }
  symbolize::CpuFrameNames names(selection->profile);
  auto summary = analyze::summarize_cpu(
      *reader, *selection, filter, [&](int64_t frame_id) { return names.names_of(frame_id); }, options.per_process,
      options.top);
  std::string text = options.json ? report::cpu_profile_json(summary) : report::cpu_profile_text(summary, options.processes);
  std::fputs(text.c_str(), stdout);
  return 0;
}

}  // namespace canopy::cli
