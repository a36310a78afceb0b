// `canopy heap dump|on|off PID`: a command to the heap profiler in a process of a
// recording being made with record --heap. The process's environment names the
// recorder's socket (CANOPY_HEAP_SOCKET); the recorder passes the command on to the
// profiler's connection from that process. The socket's directory is private to the
// recorder's user, and so are the commands.
#pragma once

#include <sys/types.h>

#include "common/result.h"

namespace canopy::record {

enum class HeapCommand { kDump, kSamplingOn, kSamplingOff };

// Ok once the recorder has passed it on: a dump is then taken by the process's own
// profiler thread, and is in the recording within its next commit.
Status send_heap_command(pid_t pid, HeapCommand command);

}  // namespace canopy::record
