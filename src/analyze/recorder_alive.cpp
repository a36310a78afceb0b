#include "analyze/recorder_alive.h"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <string>

namespace canopy::analyze {

bool recorder_running(const store::RecordingMeta& meta) {
  if (!meta.recorder_pid || *meta.recorder_pid <= 0 || !meta.host) {
    return false;
  }
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0 || *meta.host != host) {
    return false;
  }
  const auto pid = static_cast<pid_t>(*meta.recorder_pid);
  if (pid == ::getpid()) {
    return true;  // record --serve: this process writes it (and a poll reads no /proc)
  }
  if (::kill(pid, 0) != 0 && errno != EPERM) {
    return false;
  }
  // A PID can be reused: by a canopy, it is as good a guess as any (the file's lack of
  // an end then shows as soon as that canopy ends).
  std::string name;
  std::getline(std::ifstream("/proc/" + std::to_string(pid) + "/comm"), name);
  return name == "canopy";
}

}  // namespace canopy::analyze
