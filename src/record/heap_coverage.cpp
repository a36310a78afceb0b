#include "record/heap_coverage.h"

#include <algorithm>
#include <string_view>

#include "heap/wire_format.h"

namespace canopy::record {
namespace {

constexpr int kOwnWordBits = static_cast<int>(sizeof(void*) * 8);

// `ld.so PROGRAM`: the kernel runs the loader itself, which has no interpreter of its
// own and yet preloads. Its names: ld-linux-x86-64.so.2, ld-linux-aarch64.so.1,
// ld-musl-x86_64.so.1, ld.so.
bool is_the_loader(std::string_view exe) {
  std::string_view name = exe.substr(exe.rfind('/') + 1);  // npos + 1 is 0
  return (name.starts_with("ld-") || name.starts_with("ld.")) && name.find(".so") != std::string_view::npos;
}

// LD_PRELOAD's entries are separated by spaces or colons (ld.so(8)).
bool preloads(const std::optional<std::string>& value, std::string_view library) {
  if (!value) {
    return false;
  }
  std::string_view rest = *value;
  while (!rest.empty()) {
    size_t end = rest.find_first_of(" :");
    if (rest.substr(0, end) == library) {
      return true;
    }
    rest.remove_prefix(end == std::string_view::npos ? rest.size() : end + 1);
  }
  return false;
}

}  // namespace

const char* HeapCoverage::reason_not_loaded(probe::ProcessFiles* files) const {
  if (!files) {
    return store::kUnprofiledUnknown;
  }
  // The auxiliary vector says in one small read what the program's ELF headers and
  // the executable's mode would in three: AT_BASE is 0 when the kernel mapped no
  // interpreter (no PT_INTERP), and AT_SECURE is the loader's own test for ignoring
  // LD_PRELOAD (setuid, setgid, file capabilities), whoever the recorder runs as.
  const probe::AuxvRead auxv = files->read_auxv();
  if (auxv.access == probe::Access::kDenied) {
    // A process of our own tree whose files are closed to us changed its credentials
    // at exec: the kernel ran it in secure-execution mode.
    return store::kUnprofiledSetuid;
  }
  if (auxv.access == probe::Access::kGone) {
    return store::kUnprofiledUnknown;
  }
  if (auxv.fields.word_bits != kOwnWordBits) {
    return auxv.fields.word_bits == 32 ? store::kUnprofiled32Bit : store::kUnprofiled64Bit;
  }
  if (auxv.fields.secure) {
    return store::kUnprofiledSetuid;
  }
  if (auxv.fields.interpreter_base == 0 && !is_the_loader(files->read_exe())) {
    return store::kUnprofiledStatic;
  }
  static constexpr std::string_view kNames[] = {"LD_PRELOAD", heap_wire::kSocketVariable};
  const probe::EnvironmentRead environment = files->read_environment(kNames);
  if (environment.access == probe::Access::kDenied) {
    return store::kUnprofiledSetuid;
  }
  if (environment.access == probe::Access::kGone) {
    return store::kUnprofiledUnknown;
  }
  if (preloads(environment.values[0], library_) && environment.values[1] == socket_) {
    // Loaded, it could not connect: the socket's directory is the recorder's user's.
    const std::optional<uint64_t> user = auxv.fields.effective_uid;
    return user && *user != 0 && *user != recorder_uid_ ? store::kUnprofiledOtherUser : nullptr;
  }
  // An environment that reads empty may be one that `env -i` cleared, or that of a
  // process whose memory went between the two reads: the living still have an auxv.
  if (files->read_auxv().access != probe::Access::kRead) {
    return store::kUnprofiledUnknown;
  }
  return store::kUnprofiledEnvironment;
}

void HeapCoverage::on_program(int64_t process_id, pid_t pid, probe::ProcessFiles* files, uint64_t exec_ns) {
  programs_[process_id] = Program{pid, reason_not_loaded(files), exec_ns, {}};
}

void HeapCoverage::on_fork(int64_t process_id, pid_t pid, int64_t parent_id, uint64_t forked_ns) {
  auto parent = programs_.find(parent_id);
  Program copy = parent == programs_.end() ? Program{pid, store::kUnprofiledUnknown, 0, {}} : parent->second;
  copy.pid = pid;
  copy.forked_from = parent_id;
  copy.forked_ns = forked_ns;
  programs_[process_id] = copy;
}

void HeapCoverage::on_never_execd(int64_t process_id, int64_t parent_id) {
  // Only a process that could not be looked at learns its verdict so: one found a
  // zombie already (a fork that ended at once) shows no program of its own. It ran
  // its parent's program now, unless the parent exec'd after the fork: a case this
  // cannot tell, and a rare one.
  auto it = programs_.find(process_id);
  if (it == programs_.end() || it->second.reason != store::kUnprofiledUnknown) {
    return;
  }
  if (auto parent = programs_.find(parent_id); parent != programs_.end()) {
    const pid_t pid = it->second.pid;
    it->second = parent->second;
    it->second.pid = pid;
    it->second.forked_from = parent_id;
    it->second.forked_ns = 0;
  }
}

void HeapCoverage::on_exec_time(int64_t process_id, uint64_t exec_ns) {
  if (auto it = programs_.find(process_id); it != programs_.end()) {
    it->second.started_ns = std::max(it->second.started_ns, exec_ns);
  }
}

void HeapCoverage::on_image(std::optional<int64_t> process_id, pid_t pid, uint64_t loaded_ns) {
  images_.push_back({process_id, pid, loaded_ns});
}

void HeapCoverage::on_stood_aside(std::optional<int64_t> process_id, pid_t pid, uint64_t loaded_ns,
                                  const char* reason) {
  images_.push_back({process_id, pid, loaded_ns, reason});
}

// The latest load of an image of each process; by PID for an image the recorder could
// not tie to its process (it connected and ended between two looks at the tree). A PID
// is not reused within most recordings, and one that is only makes a process count as
// profiled.
class HeapCoverage::LatestImages {
 public:
  void add(const Image& image) {
    const Image*& latest = image.process_id ? by_process_[*image.process_id] : by_pid_[image.pid];
    if (!latest || latest->loaded_ns < image.loaded_ns) {
      latest = &image;
    }
  }
  const Image* of(int64_t process_id, pid_t pid) const {
    auto by_process = by_process_.find(process_id);
    auto by_pid = by_pid_.find(pid);
    const Image* a = by_process == by_process_.end() ? nullptr : by_process->second;
    const Image* b = by_pid == by_pid_.end() ? nullptr : by_pid->second;
    return !a || (b && b->loaded_ns > a->loaded_ns) ? b : a;
  }

 private:
  std::unordered_map<int64_t, const Image*> by_process_;
  std::unordered_map<pid_t, const Image*> by_pid_;
};

// Why the profiler of a program stood aside, or nullptr: as said by its process, or by
// the process it was forked from (a fork says nothing: it runs the same program), since
// the program began and before the fork: a parent that exec'd after it runs another
// program, whose profiler's word is not the fork's. (Of a process's images only the
// latest is kept: a parent whose next program stood aside too leaves its fork none.)
const char* HeapCoverage::aside_reason(int64_t process_id, const Program& program,
                                       const LatestImages& asides) const {
  int64_t id = process_id;
  uint64_t before_ns = UINT64_MAX;
  // A chain of forks is as long as the tree is deep; the bound only guards a cycle.
  for (size_t step = 0; step <= programs_.size(); ++step) {
    auto it = programs_.find(id);
    if (it == programs_.end()) {
      return nullptr;
    }
    const Image* aside = asides.of(id, it->second.pid);
    if (aside && aside->loaded_ns >= program.started_ns && aside->loaded_ns <= before_ns) {
      return aside->stood_aside_for;
    }
    if (!it->second.forked_from) {
      return nullptr;
    }
    if (it->second.forked_ns) {
      before_ns = std::min(before_ns, it->second.forked_ns);
    }
    id = *it->second.forked_from;
  }
  return nullptr;
}

std::vector<store::HeapUnprofiledRow> HeapCoverage::unprofiled() const {
  LatestImages profiled_images;
  LatestImages asides;
  for (const Image& image : images_) {
    (image.stood_aside_for ? asides : profiled_images).add(image);
  }
  std::vector<store::HeapUnprofiledRow> rows;
  for (const auto& [process_id, program] : programs_) {
    // An image loaded before the program's exec was an earlier program's.
    const Image* image = profiled_images.of(process_id, program.pid);
    if (image && image->loaded_ns >= program.started_ns) {
      continue;
    }
    const char* reason = program.reason ? program.reason : aside_reason(process_id, program, asides);
    rows.push_back({process_id, program.pid, reason ? reason : store::kUnprofiledNoSamples, rate_bytes_});
  }
  std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.process_id < b.process_id; });
  return rows;
}

}  // namespace canopy::record
