// Bytes compressed into the gzip format (RFC 1952) with zlib: what the HTML report
// embeds and what pprof reads its profiles in. canopy's binary already loads libz
// (libelf, under the symbolizer, links it), so this adds no library to its start.
#pragma once

#include <string>
#include <string_view>

#include "common/result.h"

namespace canopy {

// The whole of `data` as one gzip member, at the best compression; an error only when
// zlib cannot (out of memory).
Result<std::string> gzip(std::string_view data);

}  // namespace canopy
