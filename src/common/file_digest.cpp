#include "common/file_digest.h"

#include <fcntl.h>
#include <nettle/sha2.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "common/scoped_resource.h"
#include "common/text.h"

namespace canopy {

Result<std::string> file_sha256_hex(const std::string& path) {
  ScopedFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd) {
    return Error{"cannot read '" + path + "': " + std::strerror(errno)};
  }
  ::posix_fadvise(fd.get(), 0, 0, POSIX_FADV_SEQUENTIAL);
  sha256_ctx context;
  sha256_init(&context);
  std::vector<uint8_t> buffer(1 << 20);
  for (;;) {
    ssize_t n = ::read(fd.get(), buffer.data(), buffer.size());
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n < 0) {
      return Error{"cannot read '" + path + "': " + std::strerror(errno)};
    }
    if (n == 0) {
      break;
    }
    sha256_update(&context, static_cast<size_t>(n), buffer.data());
  }
  uint8_t digest[SHA256_DIGEST_SIZE];
  sha256_digest(&context, sizeof digest, digest);
  return hex_of(digest, sizeof digest);
}

}  // namespace canopy
