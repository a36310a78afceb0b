#include "record/recording_meta.h"

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <climits>

#include "probe/process_files.h"

namespace canopy::record {
namespace {

int64_t rusage_ns(const timeval& tv) { return static_cast<int64_t>(tv.tv_sec) * 1'000'000'000 + tv.tv_usec * 1000; }

std::string current_directory() {
  char cwd[PATH_MAX];
  return ::getcwd(cwd, sizeof cwd) ? cwd : "";
}

}  // namespace

void write_start_meta(store::Writer& writer, const RecordOptions& options, const probe::HostInfo& host,
                      int64_t start_ms, pid_t root) {
  store::RecordingMeta meta;
  meta.canopy_version = CANOPY_VERSION;
  meta.host = host.hostname;
  meta.kernel = host.kernel;
  meta.machine = host.machine;
  meta.cpu_count = host.cpu_count;
  meta.page_size_bytes = host.page_size_bytes;
  meta.clock_ticks_per_second = host.clock_ticks_per_second;
  meta.timezone = host.timezone;
  meta.utc_offset_s = host.utc_offset_s;
  meta.start_ms = start_ms;
  meta.interval_ms = options.interval_ms;
  meta.mode = options.attach_pid ? "attach" : "run";
  meta.root_pid = root;
  meta.recorder_pid = ::getpid();
  meta.cwd = current_directory();
  meta.command = options.command;
  if (options.attach_pid) {
    // What canopy attached to: its command line and working directory, as a run's are
    // the command canopy was given and the directory it ran it in.
    if (auto attached = probe::ProcessFiles::open(root)) {
      meta.command = attached->read_cmdline();
      if (std::string cwd = attached->read_cwd(); !cwd.empty()) {
        meta.cwd = cwd;
      }
    }
  }
  if (options.pss) {
    meta.pss_interval_ms = options.pss_interval_ms;
  }
  // What the recording can and cannot have seen (issue 5 adds process events and cgroups).
  std::string probes = "proc-stat,proc-statm,proc-status,children-lists";
  auto self = probe::ProcessFiles::open(::getpid());
  if (self && self->has_schedstat()) {
    probes += ",schedstat";
  }
  if (options.pss) {
    probes += ",smaps-rollup";
  }
  if (!options.attach_pid) {
    probes += ",subreaper";
  }
  meta.probes = probes;
  writer.set_meta(meta);
}

void write_end_meta(store::Writer& writer, int64_t end_ms, int64_t processes, std::optional<int> root_wait_status,
                    bool run_mode) {
  store::RecordingMeta meta;
  meta.end_ms = end_ms;
  meta.processes = processes;
  if (root_wait_status) {
    int status = *root_wait_status;
    if (WIFEXITED(status)) {
      meta.exit_code = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status)) {
      meta.exit_signal = WTERMSIG(status);
    }
  }
  rusage children{};
  if (run_mode && ::getrusage(RUSAGE_CHILDREN, &children) == 0) {
    // Exact for every process of the tree that was waited for, like `time`.
    meta.tree_cpu_user_ns = rusage_ns(children.ru_utime);
    meta.tree_cpu_system_ns = rusage_ns(children.ru_stime);
  }
  rusage self{};
  if (::getrusage(RUSAGE_SELF, &self) == 0) {
    meta.recorder_cpu_user_ns = rusage_ns(self.ru_utime);
    meta.recorder_cpu_system_ns = rusage_ns(self.ru_stime);
    meta.recorder_max_rss_bytes = static_cast<int64_t>(self.ru_maxrss) * 1024;
  }
  writer.set_meta(meta);
}

}  // namespace canopy::record
