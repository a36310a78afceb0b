#include "cli/view_serving.h"

#include <pthread.h>
#include <signal.h>

#include <chrono>

#include "common/signal_free_thread.h"
#include "common/terminal_text.h"
#include "web/listen_address.h"

namespace canopy::cli {
namespace {

// How often the server's thread tries to open the recording until the first commit.
constexpr int kRetryMs = 100;

}  // namespace

ViewServing::ViewServing(const record::RecordOptions& options)
    : profilers_({.live_processes = [this] { return live_processes(); },
                  .heap_profile = options.heap_rate_bytes.has_value(),
                  .heap_sampling_at_start = options.heap_rate_bytes.value_or(0) > 0,
                  .cpu_profile = options.cpu_profile_hz.has_value()}) {}

Result<std::unique_ptr<ViewServing>> ViewServing::start(const std::string& listen,
                                                          const record::RecordOptions& options) {
  ASSIGN_OR_RETURN(auto address, web::parse_listen_address(listen));
  ASSIGN_OR_RETURN(auto module, web::load_web_module());
  std::unique_ptr<ViewServing> serving(new ViewServing(options));
  web::ServerOptions server_options{address.address, address.port};
  server_options.control = &serving->control_;
  server_options.require_token = !web::is_loopback_address(address.address);
  auto service = module->bind_view_server(*serving->loading_, server_options);
  if (!service) {
    return Error{"--serve: " + service.error().message};
  }
  serving->service_ = std::move(*service);
  if (auto warning = web::reachable_warning("--serve", address.address, web::kRecordingExposes); !warning.empty()) {
    print_error(warning);
  }
  print_error("serving the recording live at " + serving->service_->url());
  return serving;
}

ViewServing::~ViewServing() {
  if (!thread_.joinable()) {
    return;  // never started: nothing runs
  }
  stopping_ = true;
  service_->stop();  // returns once serve() has, or at once before it runs
  thread_.join();
}

void ViewServing::recording_created(const std::string& path) { path_ = path; }

void ViewServing::recording_committed() { loading_->nudge(); }

std::vector<record::TreeProcess> ViewServing::live_processes() {
  std::shared_ptr<const live::LiveFigures> figures;
  {
    std::lock_guard lock(figures_mutex_);
    figures = figures_;
  }
  std::vector<record::TreeProcess> processes;
  if (figures) {
    for (const live::LiveProcessFigures& p : figures->each_process) {
      processes.push_back({static_cast<pid_t>(p.pid), p.command});
    }
  }
  return processes;
}

void ViewServing::publish(std::shared_ptr<const live::LiveFigures> figures) {
  {
    std::lock_guard lock(figures_mutex_);
    figures_ = std::move(figures);  // a pointer swap: the loop never waits on a reader
  }
  begin_serving();
}

void ViewServing::begin_serving() {
  // The connections' threads inherit the server thread's mask.
  std::call_once(begun_, [this] { thread_ = signal_free_thread([this] { run(); }); });
}

void ViewServing::run() {
  // The recorder commits its first second a second after the start: until then the
  // file has no meta a reader can see. Connections wait in the socket's queue meanwhile.
  while (!stopping_) {
    Status begun = loading_->begin(path_);
    if (begun) {
      break;
    }
    {
      std::lock_guard lock(failure_mutex_);
      open_failure_ = begun.error();
    }
    ++failed_attempts_;
    std::this_thread::sleep_for(std::chrono::milliseconds(kRetryMs));
  }
  if (!stopping_) {
    serving_ = true;
    if (auto served = service_->serve(); !served) {
      print_error("--serve: " + served.error().message);
    }
  }
  serve_returned_ = true;
}

void ViewServing::serve_until_stopped(bool recording_complete) {
  {
    // The tree has ended: the profiler switch has no process left to act on.
    std::lock_guard lock(figures_mutex_);
    figures_ = nullptr;
  }
  if (recording_complete) {
    begin_serving();  // a command shorter than one interval ended before the first tick
  }
  if (!thread_.joinable()) {
    return;  // no recording to serve
  }
  // The finished file opens at once: wait for the thread to open it, or to fail to twice
  // more (an attempt, not a time: a loaded machine may take long over one).
  const int failed_before = failed_attempts_;
  while (!serving_ && !serve_returned_ && failed_attempts_ < failed_before + 2) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (!serving_ || serve_returned_) {
    std::lock_guard lock(failure_mutex_);
    if (open_failure_) {
      print_error("--serve: " + open_failure_->message);
    }
    return;
  }
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  print_error("the recording is complete; still serving it at " + service_->url() + " (Ctrl-C to stop)");
  int signal = 0;
  sigwait(&stop_signals, &signal);
}

}  // namespace canopy::cli
