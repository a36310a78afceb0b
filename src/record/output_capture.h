// --capture-output: the command's stdout and stderr pass through the recorder, which
// writes them on to its own stdout and stderr (two streams stay two) and stores every
// line as an event. Each stream is a pseudo-terminal when the recorder's own is a
// terminal, else a pipe, so the command sees what it would see without canopy: line
// buffering and colours on a terminal, block buffering in CI.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "common/result.h"
#include "common/scoped_resource.h"
#include "record/output_lines.h"

namespace canopy::record {

class OutputCapture {
 public:
  using LineSink = std::function<void(int64_t t_ms, const char* stream, const std::string& text)>;

  static Result<OutputCapture> create(LineSink sink);
  OutputCapture(OutputCapture&&) = default;
  OutputCapture& operator=(OutputCapture&&) = default;

  // The command's ends, to become its fds 1 and 2.
  int child_stdout() const { return streams_[0].child_end.get(); }
  int child_stderr() const { return streams_[1].child_end.get(); }
  // Once the command has started: only it holds its ends, so that ours see EOF.
  void close_child_ends();

  // Our ends, for the recorder's epoll set; -1 once a stream has ended.
  std::array<int, 2> poll_fds() const { return {streams_[0].ours.get(), streams_[1].ours.get()}; }
  // One of them is readable: reads what is there on both, passes it on, stores the
  // lines, all stamped `now_ms`.
  void read_available(int64_t now_ms);
  // At the end of the recording: reads what is left without waiting for EOF (a
  // daemon may hold the stream open forever) and stores partial last lines.
  void drain(int64_t now_ms);

  // "pty" or "pipe" for each stream, for the recording's meta.
  std::string kinds() const;

 private:
  struct Stream {
    const char* name;  // "stdout" / "stderr": the event kind
    int forward_to;    // our own fd 1 or 2
    bool is_pty = false;
    ScopedFd ours;
    ScopedFd child_end;
    std::unique_ptr<OutputLines> lines;
  };
  OutputCapture() = default;
  // Returns false at EOF or error (the stream is then closed).
  bool read_once(Stream& stream, int64_t now_ms);

  std::array<Stream, 2> streams_;
};

}  // namespace canopy::record
