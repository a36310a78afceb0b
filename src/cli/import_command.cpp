#include <cstdio>

#include "cli/commands.h"
#include "cli/progress_line.h"
#include "common/terminal_text.h"
#include "common/text.h"
#include "import/onlooker_import.h"

namespace canopy::cli {

int run_import_command(const ImportOptions& cli) {
  importers::OnlookerImportOptions options;
  options.input = cli.file;
  options.output = cli.output.empty() ? importers::default_import_output(cli.file) : cli.output;
  options.force = cli.force;
  if (cli.cpus > 0) {
    options.cpu_count = cli.cpus;
  }
  ProgressLine progress("importing " + cli.file);
  options.progress = [&](int64_t done, int64_t total) { progress.update(done, total); };

  auto result = importers::import_onlooker(options);
  progress.finish();
  if (!result) {
    print_error(result.error().message);
    return 1;
  }
  print_line(stdout, "imported " + std::to_string(result->processes) + " processes, " +
                         std::to_string(result->samples) + " samples at " + std::to_string(result->ticks) +
                         " times over " + format_duration_ms(result->end_ms - result->start_ms) + " from " + cli.file +
                         " (Onlooker JSON) to " + options.output);
  if (result->has_cpu && !options.cpu_count) {
    print_error(
        "warning: CPU times are for 1 CPU: Onlooker's cpuUsage is a share of the whole machine; import again with "
        "--cpus N (the machine's logical processors) for the real times");
  }
  return 0;
}

}  // namespace canopy::cli
