#include "common/output_path.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <memory>

namespace canopy {
namespace {

Error cannot_write(const std::string& path, const std::string& why) {
  return Error{"cannot write '" + path + "': " + why};
}

// The file a chain of symlinks ends at, which does not exist yet (stat(2) found
// nothing): `out -> sub/out.csv` is created as sub/out.csv, beside the link's folder.
Result<std::string> dangling_target(const std::string& path) {
  std::string at = path;
  for (int hops = 0; hops < 40; ++hops) {  // the kernel's own limit (ELOOP)
    struct stat st{};
    if (::lstat(at.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) {
      return at;
    }
    char target[PATH_MAX];
    ssize_t n = ::readlink(at.c_str(), target, sizeof target - 1);
    if (n < 0) {
      return cannot_write(path, std::strerror(errno));
    }
    std::string next(target, static_cast<size_t>(n));
    size_t slash = at.rfind('/');
    at = next[0] == '/' || slash == std::string::npos ? next : at.substr(0, slash + 1) + next;
  }
  return cannot_write(path, std::strerror(ELOOP));
}

// The name of an existing regular file, every symlink on the way resolved.
Result<std::string> existing_target(const std::string& path) {
  std::unique_ptr<char, decltype(&std::free)> resolved(::realpath(path.c_str(), nullptr), &std::free);
  if (!resolved) {
    return cannot_write(path, std::strerror(errno));
  }
  return std::string(resolved.get());
}

const char* kind_name(mode_t mode) {
  if (S_ISCHR(mode)) {
    return "a character device";
  }
  if (S_ISFIFO(mode)) {
    return "a FIFO";
  }
  if (S_ISBLK(mode)) {
    return "a block device";
  }
  if (S_ISSOCK(mode)) {
    return "a socket";
  }
  return "not a regular file";
}

}  // namespace

Result<OutputTarget> resolve_output(const std::string& path, const OutputRules& rules) {
  struct stat st{};
  if (::stat(path.c_str(), &st) != 0) {
    if (errno != ENOENT) {
      return cannot_write(path, std::strerror(errno));
    }
    // Nothing there, or a symlink to nothing: the file is created where it leads.
    ASSIGN_OR_RETURN(auto target, dangling_target(path));
    return OutputTarget{OutputTarget::Kind::kNew, target};
  }
  for (const std::string& input : rules.inputs) {
    struct stat in{};
    if (::stat(input.c_str(), &in) == 0 && in.st_dev == st.st_dev && in.st_ino == st.st_ino) {
      return cannot_write(path, "it is the input file '" + input + "'");
    }
  }
  if (S_ISDIR(st.st_mode)) {
    return cannot_write(path, "is a directory");
  }
  if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) {
    if (!rules.regular_only.empty()) {
      return cannot_write(path, std::string(kind_name(st.st_mode)) + "; " + rules.regular_only);
    }
    return OutputTarget{OutputTarget::Kind::kStream, path};
  }
  if (!S_ISREG(st.st_mode)) {
    return cannot_write(path, std::string(kind_name(st.st_mode)) +
                                  ": canopy writes only a regular file, a character device or a FIFO");
  }
  if (!rules.force) {
    return cannot_write(path, "file exists (use --force to replace it)");
  }
  ASSIGN_OR_RETURN(auto target, existing_target(path));
  return OutputTarget{OutputTarget::Kind::kRegular, target};
}

Status place_output(const std::string& temporary, const OutputTarget& target, const std::string& shown, bool force) {
  if (!force) {
    if (::link(temporary.c_str(), target.path.c_str()) == 0) {
      ::unlink(temporary.c_str());
      return Ok{};
    }
    if (errno == EEXIST) {
      return cannot_write(shown, "file exists (use --force to replace it)");
    }
    // A file system without hard links (EPERM, ENOTSUP...): rename is all there is.
  }
  if (::rename(temporary.c_str(), target.path.c_str()) != 0) {
    return cannot_write(shown, std::strerror(errno));
  }
  return Ok{};
}

}  // namespace canopy
