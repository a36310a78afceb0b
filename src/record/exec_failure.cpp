#include "record/exec_failure.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string_view>

#include "common/scoped_resource.h"

namespace canopy::record {
namespace {

bool is_directory(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool is_regular_file(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

// The file exec tried: the command itself when it names a path, else the first
// executable file of that name on PATH (glibc's search goes on past one whose exec fails
// with ENOENT, so any of them may be the culprit; the first is the one a shell names).
std::optional<std::string> file_tried(const std::string& command) {
  if (command.find('/') != std::string::npos) {
    return is_regular_file(command) ? std::optional(command) : std::nullopt;
  }
  const char* path = std::getenv("PATH");
  std::string_view dirs = path ? path : "/bin:/usr/bin";  // glibc's default
  while (true) {
    size_t colon = dirs.find(':');
    std::string_view dir = dirs.substr(0, colon);
    std::string candidate = (dir.empty() ? std::string(".") : std::string(dir)) + "/" + command;
    if (is_regular_file(candidate) && ::access(candidate.c_str(), X_OK) == 0) {
      return candidate;
    }
    if (colon == std::string_view::npos) {
      return std::nullopt;
    }
    dirs.remove_prefix(colon + 1);
  }
}

// The interpreter a script's "#!" line names, as the kernel reads it: after "#!" and
// blanks, up to the next blank or the end of the line.
std::optional<std::string> script_interpreter(const std::string& file) {
  ScopedFd fd(::open(file.c_str(), O_RDONLY | O_CLOEXEC));
  char head[256];
  ssize_t n = fd ? ::read(fd.get(), head, sizeof head) : -1;
  if (n < 2 || head[0] != '#' || head[1] != '!') {
    return std::nullopt;
  }
  std::string_view line(head + 2, static_cast<size_t>(n) - 2);
  line = line.substr(0, line.find('\n'));
  size_t start = line.find_first_not_of(" \t");
  if (start == std::string_view::npos) {
    return std::nullopt;
  }
  line.remove_prefix(start);
  return std::string(line.substr(0, line.find_first_of(" \t")));
}

// ENOENT from exec of a file that exists: what it names to load it is missing.
std::string missing_interpreter(const std::string& file) {
  auto interpreter = script_interpreter(file);
  if (!interpreter) {
    return "the loader it names (its ELF interpreter) does not exist";
  }
  if (is_regular_file(*interpreter)) {
    return "its interpreter '" + *interpreter + "' (its #! line) names a loader that does not exist";
  }
  std::string why = "its interpreter '" + *interpreter + "' (its #! line) does not exist";
  if (!interpreter->empty() && interpreter->back() == '\r') {
    why += ": the line ends in a carriage return (Windows line endings)";
  }
  return why;
}

}  // namespace

ExecFailure exec_failure(const std::string& command, int error) {
  const std::string prefix = "cannot run '" + command + "': ";
  if (error == ENOENT) {
    if (auto file = file_tried(command)) {
      return ExecFailure{kExitCannotExecute, prefix + missing_interpreter(*file)};
    }
    bool is_path = command.find('/') != std::string::npos;
    return ExecFailure{kExitNotFound, prefix + (is_path ? "no such file" : "command not found (searched PATH)")};
  }
  if (error == EACCES && command.find('/') != std::string::npos && is_directory(command)) {
    return ExecFailure{kExitCannotExecute, prefix + "it is a directory"};
  }
  return ExecFailure{kExitCannotExecute, prefix + std::strerror(error)};
}

}  // namespace canopy::record
