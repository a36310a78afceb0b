// The heap profile of a recording (record --heap) as pprof reads it: a gzipped
// perftools.profiles.Profile (github.com/google/pprof, proto/profile.proto), written
// with protozero. The process images asked for (heap_selection.h), merged into one
// profile whose samples carry `pid` and `command` labels:
//   sample types  alloc_objects/count, alloc_space/bytes (from each image's start to
//                 its moment), inuse_objects/count, inuse_space/bytes (held at it);
//                 the default is inuse_space. Estimates, not counts: the comments say
//                 the rate (period, of period type space/bytes).
// Mappings, locations and functions as the shared writer makes them (pprof_profile.h).
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "common/result.h"
#include "export/heap_selection.h"
#include "store/reader.h"

namespace canopy::exporters {

Status write_heap_pprof(const store::Reader& reader, const HeapExportOptions& options,
                        const std::function<void(std::string_view)>& out);

// The Profile message itself, before gzip: the same on every machine for the same
// recording and the same files on disk (the golden test's), where gzip's bytes may
// change with zlib's version.
Result<std::string> heap_pprof_profile(const store::Reader& reader, const HeapExportOptions& options);

}  // namespace canopy::exporters
