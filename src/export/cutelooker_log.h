// export/: recordings in other tools' formats. This file: the events as a
// Cutelooker/Onlooker log, {"<ms since the epoch>": ["message", ...], ...}, so that a
// recording's logs, output and markers open in Cutelooker beside its data.
#pragma once

#include <functional>
#include <set>
#include <string>
#include <string_view>

#include "common/result.h"
#include "store/reader.h"

namespace canopy::exporters {

// The kinds of event a recording holds: the recorder's (mark, exec, signal, limit),
// --capture-output's (stdout, stderr) and `canopy log add`'s (log).
inline constexpr std::string_view kEventKindList[] = {"log", "stdout", "stderr", "mark", "exec", "signal", "limit"};
bool is_event_kind(std::string_view kind);
std::string event_kinds_text();  // "log, stdout, ...", for help and refusals

// Events of the given kinds (all when empty), in time order, events at the same
// millisecond under one key. Imported log lines are written as they were; other
// kinds get a "[kind] " prefix so that output, markers and process events stay
// recognisable among them.
Status write_cutelooker_log(const store::Reader& reader, const std::set<std::string>& kinds,
                            const std::function<void(std::string_view)>& out);

}  // namespace canopy::exporters
