// What identifies a file's content: the SHA-256 of its bytes. A checksum (CRC-32) or a
// 64-bit hash would, over enough files, take two different ones for the same; no two
// inputs with the same SHA-256 are known, by accident or by design.
// GNU Nettle's: it uses the CPU's SHA instructions where there are some, and it is a
// small library, so the dynamic loader's work at every start of canopy (part of the
// recorder's fixed cost) barely grows: `LD_DEBUG=statistics canopy --version` counts
// 4408 relocations with it, 3940 without. OpenSSL's libcrypto adds about 20,000.
#pragma once

#include <string>

#include "common/result.h"

namespace canopy {

// 64 lowercase hex digits; an error names the file.
Result<std::string> file_sha256_hex(const std::string& path);

}  // namespace canopy
