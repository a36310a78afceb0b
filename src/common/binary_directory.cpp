#include "common/binary_directory.h"

#include <limits.h>
#include <unistd.h>

namespace canopy {

Result<std::string> binary_directory() {
  char exe[PATH_MAX];
  ssize_t n = ::readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) {
    return Error{"cannot find the canopy binary's directory (/proc/self/exe)"};
  }
  std::string path(exe, static_cast<size_t>(n));
  return path.substr(0, path.rfind('/') + 1);
}

}  // namespace canopy
