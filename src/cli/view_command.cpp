#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <thread>

#include "cli/commands.h"
#include "common/terminal_text.h"
#include "web/listen_address.h"
#include "web/server.h"
#include "web/view_loading.h"
#include "web/web_module.h"

extern char** environ;

namespace canopy::cli {
namespace {

// Opens `url` in the user's browser ($BROWSER, else xdg-open) without waiting for it;
// says so when there is none, since the URL is printed anyway.
void open_browser(const std::string& url) {
  const char* browser = std::getenv("BROWSER");
  bool graphical = std::getenv("DISPLAY") || std::getenv("WAYLAND_DISPLAY");
  if (!browser && !graphical) {
    print_error("no browser to open here (no DISPLAY, no $BROWSER); open the URL yourself");
    return;
  }
  std::string program = browser ? browser : "xdg-open";
  char* argv[] = {program.data(), const_cast<char*>(url.c_str()), nullptr};
  std::signal(SIGCHLD, SIG_IGN);  // the kernel reaps it: we never wait for the browser
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  pid_t pid = 0;
  if (posix_spawnp(&pid, program.c_str(), &actions, nullptr, argv, environ) != 0) {
    print_error("cannot start " + program + "; open the URL yourself");
  }
  posix_spawn_file_actions_destroy(&actions);
}

}  // namespace

int run_view_command(const ViewOptions& options) {
  // Serves a preview at once; the samples load behind it (view_loading.h).
  auto loading = web::ViewLoading::start(options.path);
  if (!loading) {
    print_error(loading.error().message);
    return 1;
  }
  auto module = web::load_web_module();
  if (!module) {
    print_error(module.error().message);
    return 1;
  }
  // SIGINT and SIGTERM end the server: a thread of ours waits for them, so they must
  // be blocked in every thread, which inherit the mask from here.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  web::ServerOptions server_options{options.listen, options.port};
  server_options.require_token = !web::is_loopback_address(options.listen);
  auto server = (*module)->bind_view_server(**loading, server_options);
  if (!server) {
    print_error(server.error().message);
    return 1;
  }
  std::string url = (*server)->url();
  if (auto warning = web::reachable_warning("the viewer", options.listen, web::kRecordingExposes);
      !warning.empty()) {
    print_error(warning);
  }
  print_line(stdout, "serving " + std::filesystem::path(options.path).filename().string() + " at " + url +
                         " (Ctrl-C to stop)");
  std::fflush(stdout);
  if (options.open) {
    open_browser(url);
  }

  std::atomic<bool> stopping = false;
  std::thread waiter([&] {
    int signal = 0;
    sigwait(&stop_signals, &signal);
    stopping = true;
    (*server)->stop();  // also when it comes right after the "serving" line
  });
  // A recording found damaged while its samples load ends the server, as an unreadable
  // one ends `view` before it serves.
  Status loaded = Ok{};
  std::thread load_watcher([&] {
    loaded = (*loading)->wait_finished();
    if (!loaded) {
      pthread_kill(waiter.native_handle(), SIGTERM);
    }
  });
  Status served = (*server)->serve();
  const bool stopped_by_signal = stopping;
  if (!stopped_by_signal) {
    pthread_kill(waiter.native_handle(), SIGTERM);  // wake the waiter
  }
  waiter.join();
  if (!(*loading)->finished()) {
    // Stopped while the samples load, which cannot be interrupted. Nothing is written
    // anywhere, so leaving without waiting for the load loses nothing.
    std::fflush(nullptr);
    std::_Exit(0);
  }
  load_watcher.join();
  if (!loaded) {
    print_error(loaded.error().message);
    return 1;
  }
  if (!served && !stopped_by_signal) {
    print_error(served.error().message);
    return 1;
  }
  return 0;
}

}  // namespace canopy::cli
