#include "record/recording_meta.h"

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <climits>

#include "probe/process_files.h"
#include "store/reader.h"

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
  auto set = [&](const char* key, const std::string& value) { writer.set_meta(key, value); };
  auto set_int = [&](const char* key, int64_t value) { writer.set_meta(key, std::to_string(value)); };
  set("canopy_version", CANOPY_VERSION);
  set("host", host.hostname);
  set("kernel", host.kernel);
  set("machine", host.machine);
  set_int("cpu_count", host.cpu_count);
  set_int("page_size_bytes", host.page_size_bytes);
  set_int("clock_ticks_per_second", host.clock_ticks_per_second);
  set("timezone", host.timezone);
  set_int("utc_offset_s", host.utc_offset_s);
  set_int("start_ms", start_ms);
  set_int("interval_ms", options.interval_ms);
  set("mode", options.attach_pid ? "attach" : "run");
  set_int("root_pid", root);
  set("cwd", current_directory());
  set("command", store::json_string_array(options.command));
  if (options.pss) {
    set_int("pss_interval_ms", options.pss_interval_ms);
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
  set("probes", probes);
}

void write_end_meta(store::Writer& writer, int64_t end_ms, int64_t processes, std::optional<int> root_wait_status,
                    bool run_mode) {
  auto set_int = [&](const char* key, int64_t value) { writer.set_meta(key, std::to_string(value)); };
  set_int("end_ms", end_ms);
  set_int("processes", processes);
  if (root_wait_status) {
    int status = *root_wait_status;
    if (WIFEXITED(status)) {
      set_int("exit_code", WEXITSTATUS(status));
    } else if (WIFSIGNALED(status)) {
      set_int("exit_signal", WTERMSIG(status));
    }
  }
  rusage children{};
  if (run_mode && ::getrusage(RUSAGE_CHILDREN, &children) == 0) {
    // Exact for every process of the tree that was waited for, like `time`.
    set_int("tree_cpu_user_ns", rusage_ns(children.ru_utime));
    set_int("tree_cpu_system_ns", rusage_ns(children.ru_stime));
  }
  rusage self{};
  if (::getrusage(RUSAGE_SELF, &self) == 0) {
    set_int("recorder_cpu_user_ns", rusage_ns(self.ru_utime));
    set_int("recorder_cpu_system_ns", rusage_ns(self.ru_stime));
    set_int("recorder_max_rss_bytes", static_cast<int64_t>(self.ru_maxrss) * 1024);
  }
}

}  // namespace canopy::record
