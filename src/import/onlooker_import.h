// import/: other tools' recordings turned into canopy recordings, which report, view
// and export then read like any other (meta mode "import", source naming the tool).
// An import is whole or nothing: the recording appears only when complete.
//
// This file: an Onlooker JSON (recorded on Windows) as a canopy recording. Onlooker's
// figures map back as canopy's Onlooker export maps them out (docs/formats.md), so
// export onlooker -> import gives the same processes, peaks and samples.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "common/result.h"

namespace canopy::importers {

struct OnlookerImportOptions {
  std::string input;
  std::string output;
  bool force = false;  // replace an existing recording
  // Logical processors of the machine Onlooker ran on: its cpuUsage is a percentage
  // of all of them. Unknown (nullopt): CPU times are computed as for one CPU.
  std::optional<int64_t> cpu_count;
  std::function<void(int64_t bytes_done, int64_t bytes_total)> progress;
};

struct ImportSummary {
  int64_t processes = 0;
  int64_t samples = 0;  // entries read, one per process and time
  int64_t ticks = 0;    // distinct times
  int64_t start_ms = 0;
  int64_t end_ms = 0;
  bool has_cpu = false;  // some cpuUsage above 0
};

Result<ImportSummary> import_onlooker(const OnlookerImportOptions& options);

// Where `canopy import FILE` writes without -o: FILE with its extension replaced by
// .canopy ("Onlooker_2022-06-22.json" -> "Onlooker_2022-06-22.canopy"), beside it.
std::string default_import_output(const std::string& input);

}  // namespace canopy::importers
