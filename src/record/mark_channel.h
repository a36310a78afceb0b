// `canopy mark TEXT` and `echo TEXT >> "$CANOPY_MARK"`: markers from inside the
// recorded tree. The recorder exports CANOPY_MARK, the path of a private file (a 0700
// directory of its own), and watches it with inotify; each line appended is a marker
// at the moment it arrived. A plain file, not a FIFO or socket, so that a writer
// never blocks or fails on a recorder that has gone; the recorder holds an flock on
// it while recording, which is how `canopy mark` tells a live recording from a dead one.
//
// A line is the marker's text, or, from `canopy mark`, an RFC 7464 JSON text
// sequence record: 0x1E {"t": ms, "monotonic_ns": ns, "pid": caller, "text": "..."}
// with the caller's time and PID, so the marker links to the process that set it.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "common/result.h"
#include "common/scoped_resource.h"
#include "record/recording_clock.h"

namespace canopy::record {

inline constexpr const char* kMarkVariable = "CANOPY_MARK";
// What else a recorder puts in its channel's directory: the heap profiler's socket
// (record/heap_listener.h).
inline constexpr const char* kHeapSocketName = "heap.sock";

struct Mark {
  int64_t t_ms;
  std::optional<pid_t> pid;
  std::string text;
};

class MarkChannel {
 public:
  static Result<MarkChannel> create();
  // Moves leave the source owning nothing, so that only one removes the file.
  MarkChannel(MarkChannel&& other) noexcept;
  MarkChannel& operator=(MarkChannel&&) = delete;
  ~MarkChannel();  // removes the file and its directory

  const std::string& path() const { return path_; }
  // The channel's private directory (mode 0700), where the heap profiler's socket
  // lives too; removed with the channel.
  const std::string& directory() const { return dir_; }
  int poll_fd() const { return inotify_.get(); }
  // Once no more wakeups are wanted (the sampling has ended): read_new still reads
  // every line. Closing an inotify instance that holds a watch waits for the kernel to
  // free the watch (an SRCU grace period, up to about 20 ms here), and the recorder's
  // exit waited with it; a watch removed early is freed while the recording is
  // finished instead.
  void stop_watching();
  // Reads the lines appended since the last call; plain-text marks are timed as they
  // are read, `canopy mark`'s at the moment it sent them, both on `clock`.
  void read_new(const RecordingClock& clock, const std::function<void(const Mark&)>& on_mark);

 private:
  MarkChannel() = default;

  std::string dir_;
  std::string path_;
  ScopedFd file_;  // read end; holds the flock
  ScopedFd inotify_;
  int watch_ = -1;  // in inotify_
  std::string partial_;  // a line still being written
};

// For `canopy mark`: appends one marker to the recording in CANOPY_MARK. An error
// when not inside a recording, or when that recording has ended.
Status send_mark(const std::string& text);

}  // namespace canopy::record
