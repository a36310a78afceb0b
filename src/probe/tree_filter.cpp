#include "probe/tree_filter.h"

#include <bpf/libbpf.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <deque>
#include <fstream>
#include <string>
#include <utility>

#include "probe/process_files.h"
#include "tree_filter.skel.h"  // generated at build time from tree_filter.bpf.c

namespace canopy::probe {
namespace {

// The kernel's PID_MAX_LIMIT on 64-bit machines, for a kernel.pid_max we cannot read.
constexpr int64_t kPidLimitFallback = 4 << 20;

int64_t read_pid_max() {
  std::ifstream file("/proc/sys/kernel/pid_max");
  int64_t pid_max = 0;
  return file >> pid_max && pid_max > 0 ? pid_max : kPidLimitFallback;
}

// libbpf prints its warnings to stderr, where canopy has one line per error, its own.
// So they are not printed; of a program the verifier refused, its verdict is kept for
// that line: the log's last line ("R1 invalid mem access 'scalar'") before the
// statistics and libbpf's end marker.
constexpr char kLogEnd[] = "-- END PROG LOAD LOG --";
thread_local std::string verifier_verdict;

std::string verdict(const std::string& log) {
  std::string last;
  size_t line_start = 0;
  while (line_start < log.size()) {
    size_t line_end = std::min(log.find('\n', line_start), log.size());
    std::string line = log.substr(line_start, line_end - line_start);
    line_start = line_end + 1;
    if (!line.empty() && line.rfind("processed ", 0) != 0 && line.find(kLogEnd) == std::string::npos) {
      last = std::move(line);
    }
  }
  return last;
}

int keep_verifier_verdict(libbpf_print_level level, const char* format, va_list args) {
  if (level != LIBBPF_WARN || std::strstr(format, kLogEnd) == nullptr) {
    return 0;
  }
  va_list measure;
  va_copy(measure, args);
  int length = std::vsnprintf(nullptr, 0, format, measure);
  va_end(measure);
  if (length > 0) {
    std::string message(static_cast<size_t>(length) + 1, '\0');
    std::vsnprintf(message.data(), message.size(), format, args);
    message.resize(static_cast<size_t>(length));
    verifier_verdict = verdict(message);
  }
  return 0;
}

std::string why_no_tree_filter(int error) {
  if (error == EPERM || (error == EACCES && verifier_verdict.empty())) {
    return "not permitted (needs CAP_BPF)";
  }
  std::string why = std::strerror(error);
  if (!verifier_verdict.empty()) {
    why += " (the verifier: " + verifier_verdict + ")";
  }
  return why;
}

// libbpf attaches programs of many kinds, but not a socket filter: that is the
// socket's own option.
Status attach(int socket_fd, const bpf_program* program) {
  int fd = bpf_program__fd(program);
  if (::setsockopt(socket_fd, SOL_SOCKET, SO_ATTACH_BPF, &fd, sizeof fd) != 0) {
    return Error{std::string("cannot attach the filter: ") + std::strerror(errno)};
  }
  return Ok{};  // the socket holds the program now, whatever becomes of the skeleton
}

}  // namespace

void TreeFilter::DestroySkeleton::operator()(tree_filter_bpf* skeleton) const { tree_filter_bpf__destroy(skeleton); }

Result<TreeFilter> TreeFilter::create() {
  libbpf_set_print(keep_verifier_verdict);
  verifier_verdict.clear();
  Skeleton skeleton(tree_filter_bpf__open());
  if (!skeleton) {
    return Error{"tree filter: cannot open its programs: " + why_no_tree_filter(errno)};
  }
  const int64_t pid_limit = read_pid_max();
  const auto words = static_cast<uint32_t>((pid_limit + 63) / 64);
  bpf_map__set_max_entries(skeleton->maps.tree_pids, words);
  // libbpf 1.x returns a negative errno, and sets errno alike.
  if (int error = tree_filter_bpf__load(skeleton.get()); error != 0) {
    return Error{"tree filter: cannot load its programs: " + why_no_tree_filter(-error)};
  }
  // libbpf maps the programs' own globals (the counters), not a map declared with
  // BPF_F_MMAPABLE: that one is mapped here.
  const auto page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  const size_t bytes = (words * sizeof(uint64_t) + page - 1) / page * page;
  void* bitmap = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, bpf_map__fd(skeleton->maps.tree_pids), 0);
  if (bitmap == MAP_FAILED) {
    return Error{std::string("tree filter: cannot map its bitmap: ") + std::strerror(errno)};
  }
  TreeFilter filter(std::move(skeleton), static_cast<uint64_t*>(bitmap), bytes, pid_limit);
  filter.admit(::getpid());
  return filter;
}

TreeFilter::TreeFilter(Skeleton skeleton, uint64_t* words, size_t mapped_bytes, int64_t pid_limit)
    : skeleton_(std::move(skeleton)), words_(words), mapped_bytes_(mapped_bytes), pid_limit_(pid_limit) {}

TreeFilter::TreeFilter(TreeFilter&& other) noexcept
    : skeleton_(std::move(other.skeleton_)),
      words_(std::exchange(other.words_, nullptr)),
      mapped_bytes_(other.mapped_bytes_),
      pid_limit_(other.pid_limit_) {}

TreeFilter::~TreeFilter() {
  if (words_) {
    ::munmap(words_, mapped_bytes_);
  }
}

Status TreeFilter::filter_process_events(int fd) const {
  return attach(fd, skeleton_->progs.process_events);
}

Status TreeFilter::filter_exit_records(int fd, int family) {
  // Read by the program for each message, so set before it can see one.
  __atomic_store_n(&skeleton_->bss->taskstats_family, static_cast<uint32_t>(family), __ATOMIC_SEQ_CST);
  return attach(fd, skeleton_->progs.exit_records);
}

void TreeFilter::admit(pid_t pid) {
  if (pid > 0 && pid < pid_limit_) {
    // Atomic: the kernel sets and clears other bits of the same word at each fork.
    __atomic_fetch_or(&words_[pid / 64], uint64_t{1} << (pid % 64), __ATOMIC_SEQ_CST);
  }
}

bool TreeFilter::admitted(pid_t pid) const {
  if (pid <= 0 || pid >= pid_limit_) {
    return pid > 0;  // past the bitmap: the filters let it pass
  }
  return (__atomic_load_n(&words_[pid / 64], __ATOMIC_SEQ_CST) >> (pid % 64)) & 1;
}

void TreeFilter::admit_tree(pid_t root) {
  std::deque<pid_t> pending{root};
  while (!pending.empty()) {
    pid_t pid = pending.front();
    pending.pop_front();
    admit(pid);
    if (auto files = ProcessFiles::open(pid)) {
      // Every thread's list: a child belongs to the thread that forked it.
      for (pid_t child : files->read_children(/*threads=*/2)) {
        pending.push_back(child);
      }
    }
  }
}

int64_t TreeFilter::events_dropped() const {
  return static_cast<int64_t>(__atomic_load_n(&skeleton_->bss->events_dropped, __ATOMIC_RELAXED));
}

int64_t TreeFilter::exit_records_dropped() const {
  return static_cast<int64_t>(__atomic_load_n(&skeleton_->bss->exit_records_dropped, __ATOMIC_RELAXED));
}

}  // namespace canopy::probe
