#include "common/gzip.h"

#include <zlib.h>

#include <cstdint>

namespace canopy {

Result<std::string> gzip(std::string_view data) {
  if (data.size() > UINT32_MAX) {  // zlib's counts are 32 bits
    return Error{"zlib: " + std::to_string(data.size()) + " bytes are more than one call compresses"};
  }
  z_stream stream{};
  // windowBits 15 + 16: a gzip wrapper (the browser's DecompressionStream and pprof
  // read it), not zlib's own.
  if (deflateInit2(&stream, Z_BEST_COMPRESSION, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY) != Z_OK) {
    return Error{"zlib: cannot start compression"};
  }
  std::string out(deflateBound(&stream, data.size()), '\0');
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  stream.avail_in = static_cast<uInt>(data.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  int rc = deflate(&stream, Z_FINISH);
  out.resize(stream.total_out);
  deflateEnd(&stream);
  if (rc != Z_STREAM_END) {
    return Error{"zlib: compression failed"};
  }
  return out;
}

}  // namespace canopy
