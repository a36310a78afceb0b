// record --serve from the CLI's side: the viewer, live, in the recorder's own process.
// The server (canopy-web.so) binds before the recording starts, so its URL is printed
// at once; once the recorder has made the file and taken its first tick, the server
// follows the recording as it is written (web/view_loading.h) and serves it on threads
// of its own. It reads what the recorder commits, as `canopy view` of the same file
// would: the file is recorded exactly as without --serve.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "common/result.h"
#include "live/live_figures.h"
#include "record/options.h"
#include "record/profiler_switch.h"
#include "cli/recorder_live_control.h"
#include "web/view_loading.h"
#include "web/web_module.h"

namespace canopy::cli {

class ViewServing final : public live::LiveFiguresSink {
 public:
  // Binds `listen` (ADDR:PORT, checked already) and prints the URL, with a warning
  // when it is not loopback-only. The page may switch the profilers `options` start
  // (record/profiler_switch.h).
  static Result<std::unique_ptr<ViewServing>> start(const std::string& listen, const record::RecordOptions& options);
  ~ViewServing() override;  // stops the server and joins its thread
  ViewServing(const ViewServing&) = delete;
  ViewServing& operator=(const ViewServing&) = delete;

  void recording_created(const std::string& path) override;
  // The follower reads each commit as it is made, not at its next poll.
  void recording_committed() override;
  // While a page follows it, so that every figure reaches the page within a second.
  bool watched() const override { return loading_->watched(); }
  // The first tick: the server's thread starts, and serves as soon as the recorder's
  // first commit has put the recording's start in the file. Each tick: the live
  // processes the profiler switch may act on.
  void publish(std::shared_ptr<const live::LiveFigures> figures) override;

  // After the recording: says where the finished recording is served and serves it
  // until SIGINT or SIGTERM. Nothing when there is no recording to serve: none is
  // complete, and no tick started the server on one being made.
  void serve_until_stopped(bool recording_complete);

 private:
  explicit ViewServing(const record::RecordOptions& options);
  // The live processes of the latest tick.
  std::vector<record::TreeProcess> live_processes();
  // Starts the server's thread, once: at the first tick, or at the end.
  void begin_serving();
  // The server's thread: opens the recording once it can, then serves.
  void run();

  std::unique_ptr<web::ViewLoading> loading_ = web::ViewLoading::unstarted();
  std::mutex figures_mutex_;
  std::shared_ptr<const live::LiveFigures> figures_;
  record::ProfilerSwitch profilers_;
  RecorderLiveControl control_{profilers_};
  std::unique_ptr<web::ViewService> service_;
  std::string path_;
  std::once_flag begun_;
  std::thread thread_;
  std::atomic<bool> serving_ = false;
  std::atomic<bool> serve_returned_ = false;
  std::atomic<bool> stopping_ = false;
  std::atomic<int> failed_attempts_ = 0;  // to open the recording
  std::mutex failure_mutex_;
  std::optional<Error> open_failure_;  // the last attempt's, until one succeeds
};

}  // namespace canopy::cli
