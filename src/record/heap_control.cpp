#include "record/heap_control.h"

#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "common/scoped_resource.h"
#include "heap/wire_format.h"
#include "probe/process_files.h"

namespace canopy::record {
namespace {

// The recorder answers from its sampling loop, within a tick; a loaded machine may
// take a while, a recorder that is gone never answers.
constexpr int kAnswerTimeoutMs = 10'000;

char command_byte(HeapCommand command) {
  switch (command) {
    case HeapCommand::kDump:
      return heap_wire::kCommandDump;
    case HeapCommand::kSamplingOn:
      return heap_wire::kCommandSamplingOn;
    case HeapCommand::kSamplingOff:
      return heap_wire::kCommandSamplingOff;
  }
  return heap_wire::kCommandDump;
}

}  // namespace

Status send_heap_command(pid_t pid, HeapCommand command) {
  const std::string who = "PID " + std::to_string(pid);
  auto path = probe::read_environment_variable(pid, heap_wire::kSocketVariable);
  if (!path) {
    if (::kill(pid, 0) != 0 && errno == ESRCH) {
      return Error{"cannot reach the heap profiler of " + who + ": no such process"};
    }
    return Error{"cannot reach the heap profiler of " + who + ": it is not in a tree recorded with " +
                 "'canopy record --heap' (no " + heap_wire::kSocketVariable + " in its environment, or it is " +
                 "another user's process)"};
  }
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (path->size() >= sizeof address.sun_path) {
    return Error{"cannot reach the heap profiler of " + who + ": its socket path '" + *path + "' is too long"};
  }
  std::memcpy(address.sun_path, path->c_str(), path->size() + 1);
  ScopedFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd || ::connect(fd.get(), reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    return Error{"cannot reach the heap profiler of " + who + " at '" + *path + "': " + std::strerror(errno) +
                 " (its recording has ended)"};
  }
  heap_wire::MessageHeader header{static_cast<uint32_t>(heap_wire::MessageType::kControl),
                                  sizeof(heap_wire::Control)};
  heap_wire::Control control{heap_wire::kMagic, heap_wire::kVersion, static_cast<int32_t>(pid),
                             static_cast<uint32_t>(command_byte(command))};
  char message[sizeof header + sizeof control];
  std::memcpy(message, &header, sizeof header);
  std::memcpy(message + sizeof header, &control, sizeof control);
  if (::send(fd.get(), message, sizeof message, MSG_NOSIGNAL) != static_cast<ssize_t>(sizeof message)) {
    return Error{"cannot reach the heap profiler of " + who + ": " + std::strerror(errno)};
  }
  pollfd wait{fd.get(), POLLIN, 0};
  char answer = 0;
  if (::poll(&wait, 1, kAnswerTimeoutMs) != 1 || ::read(fd.get(), &answer, 1) != 1) {
    return Error{"the recorder of " + who + " did not answer (its recording may be ending)"};
  }
  if (answer != heap_wire::kControlDone) {
    return Error{"the heap profiler of " + who + " is not connected: it has not sampled an allocation yet, " +
                 "or its program is static, setuid or cleared its environment"};
  }
  return Ok{};
}

}  // namespace canopy::record
