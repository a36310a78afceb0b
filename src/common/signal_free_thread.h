// A thread that takes no signals. The recorder reads SIGCHLD and the stop signals
// from a signalfd, and `canopy view` waits for SIGINT and SIGTERM with sigwait: both
// see only the signals that no thread can take, so any thread either starts must
// block them all, or a SIGCHLD taken there is dropped (the command's end never
// noticed) and a Ctrl-C lost. The mask is set around the creation, which the new
// thread inherits, and the caller's own mask is left as it was.
#pragma once

#include <pthread.h>
#include <signal.h>

#include <thread>
#include <utility>

namespace canopy {

template <typename Function>
std::thread signal_free_thread(Function&& function) {
  sigset_t all, caller;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &caller);
  std::thread thread(std::forward<Function>(function));
  pthread_sigmask(SIG_SETMASK, &caller, nullptr);
  return thread;
}

}  // namespace canopy
