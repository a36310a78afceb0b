// report/: the summary of a recording for people (terminal text) and scripts (JSON).
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "analyze/summary.h"

namespace canopy::report {

// A command line as a shell would take it back: arguments with spaces or shell
// characters in single quotes.
std::string shell_join(const std::vector<std::string>& args);

// What the text reports show after a process's name to tell it from others of that
// name: the short command of a program whose telling argument canopy knows (a
// compiler's source file, a script: analyze/short_command.h), else all its arguments,
// which a report line has room for ("hold 200 600", where the viewer's band shows
// "hold"), absolute paths by their last two parts, cut to about as long. Not
// terminal_safe; "" when it has no argument.
std::string process_words(const std::vector<std::string>& cmdline, std::string_view name);
// The name, then its process_words when it has some: "cc1 f5.c". Not terminal_safe.
std::string process_title(const std::string& name, const std::vector<std::string>& cmdline);

// The block `canopy record` prints at the end and `canopy report` prints on demand.
std::string summary_text(const analyze::Summary& summary, const std::string& path);

// The same facts as one JSON object, for `canopy report --json`.
std::string summary_json(const analyze::Summary& summary, const std::string& path);
nlohmann::json summary_json_object(const analyze::Summary& summary, const std::string& path);

}  // namespace canopy::report
