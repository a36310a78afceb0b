#include <cstdio>

#include "cli/commands.h"
#include "common/output_file.h"
#include "common/terminal_text.h"
#include "export/chrome_trace.h"
#include "export/csv.h"
#include "export/cutelooker_log.h"
#include "export/jsonl_samples.h"
#include "export/onlooker_json.h"
#include "store/reader.h"

namespace canopy::cli {
namespace {

using Sink = std::function<void(std::string_view)>;
using Exporter = std::function<Status(const store::Reader&, const Sink&)>;

// The exporter the options ask for, or the one line saying what is wrong with them.
Result<Exporter> choose_exporter(const ExportOptions& options) {
  const std::string& format = options.format;
  if (format != "onlooker" && format != "csv" && format != "chrome" && format != "jsonl" &&
      format != "cutelooker-log") {
    return Error{"unknown export format '" + format + "' (known: " + kExportFormats + ")"};
  }
  if (!options.kinds.empty() && format != "cutelooker-log") {
    return Error{"--kind applies to --format cutelooker-log only"};
  }
  if ((options.long_csv || options.metric != "rss_bytes") && format != "csv") {
    return Error{std::string(options.long_csv ? "--long" : "--metric") + " applies to --format csv only"};
  }
  if (options.long_csv && options.metric != "rss_bytes") {
    return Error{"--metric is for the wide CSV; --long writes every column"};
  }
  if (format == "csv" && !exporters::is_wide_csv_metric(options.metric)) {
    return Error{"unknown --metric '" + options.metric + "' (known: " + exporters::kWideCsvMetrics + ")"};
  }
  if (format == "onlooker") {
    return Exporter([](const store::Reader& r, const Sink& out) { return exporters::write_onlooker_json(r, out); });
  }
  if (format == "csv" && options.long_csv) {
    return Exporter(exporters::write_csv_long);
  }
  if (format == "csv") {
    std::string metric = options.metric;
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
  auto reader = store::Reader::open(options.path);
  if (!reader) {
    print_error(reader.error().message);
    return 1;
  }
  Status status = Ok{};
  if (options.output.empty() || options.output == "-") {
    status = (*exporter)(*reader, [](std::string_view bytes) { std::fwrite(bytes.data(), 1, bytes.size(), stdout); });
    if (status && (std::fflush(stdout) != 0 || std::ferror(stdout))) {
      status = Error{"cannot write to stdout"};
    }
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
