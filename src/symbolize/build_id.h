// The GNU build-id of an ELF object: a hash the linker writes into a PT_NOTE, which names
// one build of a file whatever its path, and by which separate debug info is found
// (/usr/lib/debug/.build-id/ab/cdef....debug).
#pragma once

#include <cstddef>
#include <string>

#include "common/result.h"

namespace canopy::symbolize {

// Lowercase hex, as `readelf -n` prints it; empty when the object has no build-id. An
// error names the file and the cause: unreadable, not ELF, malformed notes.
Result<std::string> read_build_id_hex(const std::string& path);

// The note's bytes as lowercase hex (the recorder reads them from the mapped note).
std::string build_id_hex(const void* bytes, size_t size);

}  // namespace canopy::symbolize
