// One recording session as the sampling loop sees it: the clock, the recording, the
// tree and the kernel's sockets, and the loop that polls them until the root ends.
// record() (recorder.cpp) sets it up and closes it.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "probe/proc_events.h"
#include "probe/system.h"
#include "probe/task_exits.h"
#include "record/cpu_profiling.h"
#include "record/heap_profiling.h"
#include "record/limit_watch.h"
#include "record/live_figures_book.h"
#include "record/mark_channel.h"
#include "record/options.h"
#include "record/output_capture.h"
#include "record/recording_clock.h"
#include "record/recorder.h"
#include "record/tree_sampler.h"
#include "store/writer.h"

namespace canopy::record {

struct Session {
  const RecordOptions& options;
  RecordingClock clock;
  store::Writer& writer;
  TreeSampler& sampler;
  pid_t root = 0;
  bool run_mode = false;
  std::optional<int> root_wait_status;
  bool stop_requested = false;
  bool recording = true;  // false after a write error: keep supervising, stop writing
  OutputCapture* capture = nullptr;  // with --capture-output
  MarkChannel* marks = nullptr;      // run mode: CANOPY_MARK
  probe::ProcEventSocket* process_events = nullptr;  // when the kernel lets us listen
  probe::TaskExitListener* exit_records = nullptr;   // taskstats, likewise
  LimitWatch* limits = nullptr;                      // run mode
  std::vector<probe::ProcEvent> events_in_hand{};    // read_process_events' buffer
  const Warn* warn = nullptr;                        // told of a write error
  HeapProfiling* heap = nullptr;                     // record --heap
  CpuProfiling* cpu = nullptr;                       // record --cpu-profile
  LiveFiguresBook* live = nullptr;                   // record --metrics, --live
};

// Which event sockets to drain: both, unless epoll said which ones have something.
struct EventsReady {
  bool process_events = true;
  bool exit_records = true;
};
// Fork, exec and exit of the tree's processes, and their exit records, drained now.
// With process events, the records are read when an exit event says one is due.
void read_process_events(Session& s, EventsReady ready = {});
// Markers written with `canopy mark` since the last read.
void read_marks(Session& s);
// One line of the command's output (--capture-output), as an event.
void add_output_line(Session& s, int64_t t_ms, const char* stream, const std::string& text);
// Reaps the children that have exited, taking their final figures first.
void handle_child_exits(Session& s);
// Waits for the next tick (TickSchedule), the signals and the event sockets until the
// root has ended (or, attaching, the user asks to stop). An error is a failure of the
// loop's own machinery.
Status sampling_loop(Session& s, int signal_fd);

}  // namespace canopy::record
