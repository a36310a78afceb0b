// Runs the real canopy binary and the workload as separate processes, the way a user
// would, and reads what they leave behind.
#pragma once

#include <sys/types.h>

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "store/reader.h"
#include "support/temp_dir.h"

namespace canopy::testing {

inline const std::string kCanopy = CANOPY_BIN;
inline const std::string kWorkload = CANOPY_WORKLOAD_BIN;

struct RunOptions {
  std::string cwd;                           // empty: inherit
  std::map<std::string, std::string> env;  // set in the child (empty value: unset)
  std::vector<std::string> prefix;          // e.g. setpriv ... before the program
};

struct Finished {
  int exit_status = -1;  // exit code, or 128+N when killed by signal N
  std::string out;
  std::string err;
};

// A process started in the background; its stdout and stderr are collected.
class Started {
 public:
  Started(const std::vector<std::string>& argv, const RunOptions& options = {});
  Started(const Started&) = delete;
  Started& operator=(const Started&) = delete;
  ~Started();

  pid_t pid() const { return pid_; }
  // Blocks until a line of stdout contains `text` (or the process ends).
  bool wait_for_output(const std::string& text);
  // The same, for a line of stderr.
  bool wait_for_error_output(const std::string& text);
  // What it has written to stdout so far.
  const std::string& output() const { return result_.out; }
  const std::string& error_output() const { return result_.err; }
  void signal(int signal) const;
  Finished wait();

 private:
  void pump(int timeout_ms);
  pid_t pid_ = -1;
  int out_fd_ = -1;
  int err_fd_ = -1;
  Finished result_;
  bool waited_ = false;
};

Finished run(const std::vector<std::string>& argv, const RunOptions& options = {});

// The number after `prefix` in the process's stdout ("held NAME 4242"), once it says
// it; 0, and a failure of the test, if it never does.
pid_t pid_in_output(Started& started, const std::string& prefix);

// The recording as the reader sees it; fails the test when it cannot be opened.
store::Reader open_recording(const std::string& path);

// The highest anonymous resident memory each process reached, by process id.
std::map<int64_t, int64_t> anon_peaks(const store::Reader& reader);

// The events of kind "limit" (a limit that bit), in time order.
std::vector<store::EventRow> limit_events(const store::Reader& reader);

// How many processes on the machine have exactly this command line (arguments
// NUL-terminated, as in /proc/PID/cmdline).
int running_with_cmdline(const std::string& cmdline);

// Reads the recording at `path` as canopy writes it, every 100 ms for up to a minute,
// until `ready` holds of it: for a test that acts once something is recorded, however
// long a loaded machine takes. False if it never did.
bool wait_for_recording(const std::string& path, const std::function<bool(const store::Reader&)>& ready);

// Milliseconds since the epoch, for comparing with recorded timestamps.
int64_t epoch_ms();

int64_t mib(int64_t n);

// The whole file, bytes as they are; empty if it cannot be read.
std::string read_file(const std::string& path);

}  // namespace canopy::testing
