#include <unistd.h>

#include <cstdio>

#include "cli/commands.h"
#include "cli/time_range.h"
#include "common/output_file.h"
#include "common/terminal_text.h"
#include "common/text.h"
#include "export/chrome_trace.h"
#include "export/cpu_exports.h"
#include "export/csv.h"
#include "export/cutelooker_log.h"
#include "export/heap_collapsed.h"
#include "export/heap_pprof.h"
#include "export/jsonl_samples.h"
#include "export/onlooker_json.h"
#include "store/reader.h"

namespace canopy::cli {
namespace {

using Sink = std::function<void(std::string_view)>;
using Exporter = std::function<Status(const store::Reader&, const Sink&)>;

bool is_heap_format(const std::string& format) { return format == "pprof" || format == "collapsed"; }

// The heap exports' choice of images and moment, or the line saying what is wrong with it.
Result<exporters::HeapExportOptions> heap_options(const ExportOptions& options) {
  exporters::HeapExportOptions heap{options.pid, options.command, analyze::HeapAt::kEnd};
  if (options.at == "peak") {
    heap.at = analyze::HeapAt::kPeak;
  } else if (!options.at.empty() && options.at != "end") {
    return Error{"unknown --at '" + options.at + "' (known: end, peak)"};
  }
  return heap;
}

// Which profile pprof and collapsed export when --profile does not say: the one the
// recording holds; for one with both, the user must choose.
Result<std::string> profile_in(const store::Reader& reader) {
  const std::string said = reader.meta().cpu_profile.value_or("off");
  if (said.rfind("off", 0) == 0) {
    return std::string("heap");
  }
  ASSIGN_OR_RETURN(auto heap, reader.heap_profile());
  if (heap.images.empty()) {
    return std::string("cpu");
  }
  return Error{"'" + reader.path() + "' has both a heap and a CPU profile: choose one with --profile heap or "
               "--profile cpu"};
}

// The CPU exports' selection, or the line saying what is wrong with it.
Result<analyze::CpuSampleFilter> cpu_filter(const ExportOptions& options) {
  if (!options.at.empty()) {
    return Error{"--at applies to the heap profile (--profile heap) only"};
  }
  if (!options.metric.empty()) {
    return Error{"--metric applies to the heap profile's collapsed stacks only; the CPU profile's are sample counts"};
  }
  RETURN_IF_ERROR(check_time_range(options.from_ms, options.to_ms));
  analyze::CpuSampleFilter filter{options.pid, options.command};
  if (options.from_ms >= 0) {
    filter.from_ms = options.from_ms;
  }
  if (options.to_ms >= 0) {
    filter.to_ms = options.to_ms;
  }
  return filter;
}

// pprof or collapsed, of the profile asked for or found in the recording.
Result<Exporter> choose_profile_exporter(const ExportOptions& options) {
  const bool cpu_flags = options.from_ms >= 0 || options.to_ms >= 0;
  if (options.profile.empty() && cpu_flags && (!options.at.empty() || !options.metric.empty())) {
    return Error{"--from and --to select CPU samples, --at and --metric a heap profile: give --profile cpu or "
                 "--profile heap"};
  }
  std::string profile = options.profile;
  const bool heap_flags = !options.at.empty() || !options.metric.empty();
  if (profile.empty() && (cpu_flags || heap_flags)) {
    profile = cpu_flags ? "cpu" : "heap";
  }
  if (!profile.empty() && profile != "heap" && profile != "cpu") {
    return Error{"unknown --profile '" + profile + "' (known: heap, cpu)"};
  }
  if (profile == "heap" && cpu_flags) {
    return Error{"--from and --to apply to the CPU profile (--profile cpu) only"};
  }
  const bool pprof = options.format == "pprof";
  if (profile == "cpu") {
    RETURN_IF_ERROR(cpu_filter(options));  // said before the recording is opened
  }
  ASSIGN_OR_RETURN(auto heap, heap_options(options));
  std::string metric = options.metric.empty() ? exporters::kHeapCollapsedDefaultMetric : options.metric;
  return Exporter([=](const store::Reader& r, const Sink& out) -> Status {
    std::string chosen = profile;
    if (chosen.empty()) {
      ASSIGN_OR_RETURN(chosen, profile_in(r));
    }
    if (chosen == "cpu") {
      ASSIGN_OR_RETURN(auto cpu, cpu_filter(options));
      return pprof ? exporters::write_cpu_pprof(r, cpu, out) : exporters::write_cpu_collapsed(r, cpu, out);
    }
    return pprof ? exporters::write_heap_pprof(r, heap, out) : exporters::write_heap_collapsed(r, heap, metric, out);
  });
}

// The exporter the options ask for, or the one line saying what is wrong with them.
Result<Exporter> choose_exporter(const ExportOptions& options) {
  const std::string& format = options.format;
  if (format != "onlooker" && format != "csv" && format != "chrome" && format != "jsonl" &&
      format != "cutelooker-log" && !is_heap_format(format)) {
    return Error{"unknown export format '" + format + "' (known: " + kExportFormats + ")"};
  }
  if (!options.kinds.empty() && format != "cutelooker-log") {
    return Error{"--kind applies to --format cutelooker-log only"};
  }
  for (const std::string& kind : options.kinds) {
    if (!exporters::is_event_kind(kind)) {  // a typo would export nothing, and say nothing
      return Error{"unknown --kind '" + kind + "' (known: " + exporters::event_kinds_text() + ")"};
    }
  }
  if (options.long_csv && format != "csv") {
    return Error{"--long applies to --format csv only"};
  }
  if (!options.metric.empty() && format != "csv" && format != "collapsed") {
    return Error{"--metric applies to --format csv and collapsed only"};
  }
  if (options.long_csv && !options.metric.empty()) {
    return Error{"--metric is for the wide CSV; --long writes every column"};
  }
  if (format == "csv" && !options.metric.empty() && !exporters::is_wide_csv_metric(options.metric)) {
    return Error{"unknown --metric '" + options.metric + "' (known: " + exporters::kWideCsvMetrics + ")"};
  }
  if (format == "collapsed" && !options.metric.empty() && !exporters::is_heap_collapsed_metric(options.metric)) {
    return Error{"unknown --metric '" + options.metric + "' for --format collapsed (known: " +
                 exporters::kHeapCollapsedMetrics + ")"};
  }
  if (!is_heap_format(format)) {
    for (const auto& [given, flag] : {std::pair{options.pid != 0, "--pid"},
                                      std::pair{!options.command.empty(), "--command"},
                                      std::pair{!options.at.empty(), "--at"},
                                      std::pair{!options.profile.empty(), "--profile"},
                                      std::pair{options.from_ms >= 0, "--from"},
                                      std::pair{options.to_ms >= 0, "--to"}}) {
      if (given) {
        return Error{std::string(flag) + " applies to --format pprof and collapsed only"};
      }
    }
  }
  if (is_heap_format(format)) {
    return choose_profile_exporter(options);
  }
  if (format == "onlooker") {
    return Exporter([](const store::Reader& r, const Sink& out) { return exporters::write_onlooker_json(r, out); });
  }
  if (format == "csv" && options.long_csv) {
    return Exporter(exporters::write_csv_long);
  }
  if (format == "csv") {
    std::string metric = options.metric.empty() ? "rss_bytes" : options.metric;
    return Exporter([metric](const store::Reader& r, const Sink& out) {
      return exporters::write_csv_wide(r, metric, out);
    });
  }
  if (format == "chrome") {
    return Exporter(exporters::write_chrome_trace);
  }
  if (format == "jsonl") {
    return Exporter(exporters::write_jsonl_samples);
  }
  std::set<std::string> kinds(options.kinds.begin(), options.kinds.end());
  return Exporter([kinds](const store::Reader& r, const Sink& out) {
    return exporters::write_cutelooker_log(r, kinds, out);
  });
}

}  // namespace

int run_export_command(const ExportOptions& options) {
  auto exporter = choose_exporter(options);
  if (!exporter) {
    print_error(exporter.error().message);
    return 2;
  }
  bool to_stdout = options.output.empty() || options.output == "-";
  // As gzip refuses to: compressed bytes on a terminal are noise, and can upset it.
  if (options.format == "pprof" && to_stdout && isatty(STDOUT_FILENO)) {
    print_error("--format pprof writes gzipped protobuf: give -o FILE, or redirect stdout to a file or a pipe");
    return 2;
  }
  int exit_status = 0;
  auto reader = open_recording_in_range(options.path, options.from_ms, options.to_ms, exit_status);
  if (!reader) {
    return exit_status;
  }
  Status status = Ok{};
  if (to_stdout) {
    // Whether it all got there, main checks for every command (after_stdout_flushed).
    status = (*exporter)(*reader, [](std::string_view bytes) { std::fwrite(bytes.data(), 1, bytes.size(), stdout); });
  } else {
    auto file = OutputFile::create(options.output, {options.force, "", {options.path}});
    if (!file) {
      status = file.error();
    } else {
      status = (*exporter)(*reader, [&](std::string_view bytes) { file->write(bytes); });
      if (status) {
        status = file->commit();
      }
    }
  }
  if (!status) {
    print_error(status.error().message);
    return 1;
  }
  return 0;
}

}  // namespace canopy::cli
