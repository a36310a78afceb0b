#include <cstdio>

#include "cli/commands.h"
#include "common/atomic_file.h"
#include "export/cutelooker_log.h"
#include "store/reader.h"

namespace canopy::cli {
namespace {

constexpr const char* kExportFormats = "cutelooker-log";

}  // namespace

CLI::App* add_export_command(CLI::App& app, ExportOptions& options) {
  CLI::App* cmd = app.add_subcommand("export", "Write a recording in another tool's format");
  cmd->add_option("recording", options.path, "The .canopy file")->required();
  cmd->add_option("--format", options.format, std::string("Output format: ") + kExportFormats)->required();
  cmd->add_option("-o,--output", options.output, "Output file, written whole or not at all (default: stdout)");
  cmd->add_option("--kind", options.kinds,
                  "cutelooker-log: only events of this kind (log, stdout, stderr, mark, exec, signal); repeatable");
  return cmd;
}

int run_export_command(const ExportOptions& options) {
  if (options.format != "cutelooker-log") {
    std::fprintf(stderr, "canopy: unknown export format '%s' (known: %s)\n", options.format.c_str(), kExportFormats);
    return 2;
  }
  auto reader = store::Reader::open(options.path);
  if (!reader) {
    std::fprintf(stderr, "canopy: %s\n", reader.error().message.c_str());
    return 1;
  }
  std::set<std::string> kinds(options.kinds.begin(), options.kinds.end());
  Status status = Ok{};
  if (options.output.empty() || options.output == "-") {
    status = exporters::write_cutelooker_log(
        *reader, kinds, [](std::string_view bytes) { std::fwrite(bytes.data(), 1, bytes.size(), stdout); });
    if (status && (std::fflush(stdout) != 0 || std::ferror(stdout))) {
      status = Error{"cannot write to stdout"};
    }
  } else {
    auto file = AtomicFile::create(options.output);
    if (!file) {
      status = file.error();
    } else {
      status = exporters::write_cutelooker_log(*reader, kinds, [&](std::string_view bytes) { file->write(bytes); });
      if (status) {
        status = file->commit();
      }
    }
  }
  if (!status) {
    std::fprintf(stderr, "canopy: %s\n", status.error().message.c_str());
    return 1;
  }
  return 0;
}

}  // namespace canopy::cli
