#include "probe/perf_sampling.h"

#include <linux/perf_event.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <fstream>

#include "common/text.h"

namespace canopy::probe {
namespace {

// 128 pages a CPU (512 KiB): at 999 Hz a sample with a 127-frame stack is about 1 KiB,
// so a ring holds half a second of the busiest thread, and the recorder is woken at a
// quarter full (wakeup_watermark) besides its ticks.
constexpr size_t kRingDataPages = 128;

#if defined(__x86_64__)
// The user stack copied with each sample, for the recorder to unwind by DWARF CFI where
// frame pointers fail (record/cpu_profiling.h). 8 KiB, perf's own default: from the
// sampled function down to main in most programs (a frame is tens to hundreds of bytes;
// a PATH_MAX buffer on the stack is 4 KiB), a quarter of the 64 KiB the kernel allows.
// Not 4 KiB: on the build of `make bench-cpu` (two runs, the unwinder's deepest read
// per sample), 4 KiB would have held the whole stack of 82-85% of the samples, 8 KiB
// held it for 90-92%, and cc1 has no frame pointers to finish the rest; the kernel's
// copy of the other 4 KiB did not show in the build's system time.
// It makes a sample about 8.5 KiB: a ring holds some 60, and the recorder is woken at
// 15 (a quarter full), every 15 ms of one busy thread at 999 Hz, every 150 ms at 99 Hz.
// The copy is unwound as soon as it is read and never stored.
constexpr uint32_t kUserStackBytes = 8192;
constexpr bool kCopyUserStacks = true;
#else
// Only x86-64's registers are known to the unwinder: frame-pointer stacks elsewhere.
constexpr uint32_t kUserStackBytes = 0;
constexpr bool kCopyUserStacks = false;
#endif

int perf_event_open(perf_event_attr& attr, pid_t pid, int cpu) {
  return static_cast<int>(::syscall(SYS_perf_event_open, &attr, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC));
}

perf_event_attr sampling_attr(const CpuSamplingRequest& request, const CpuSamplingGrant& grant, size_t ring_bytes) {
  perf_event_attr attr{};
  attr.size = sizeof attr;
  attr.type = PERF_TYPE_SOFTWARE;
  attr.config = PERF_COUNT_SW_CPU_CLOCK;
  attr.freq = 1;
  attr.sample_freq = static_cast<uint64_t>(request.frequency_hz);
  attr.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CALLCHAIN;
  if (grant.user_stacks) {
    attr.sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
    attr.sample_regs_user = perf_user_registers_mask();
    attr.sample_stack_user = kUserStackBytes;
  }
  attr.disabled = request.enable_on_exec ? 1 : 0;
  attr.enable_on_exec = request.enable_on_exec ? 1 : 0;
  attr.inherit = 1;
  attr.exclude_kernel = grant.kernel_time ? 0 : 1;
  attr.exclude_hv = 1;
  // Kernel frames are never named by canopy (no kallsyms offline): not worth their bytes.
  attr.exclude_callchain_kernel = 1;
  attr.mmap = 1;
  attr.mmap2 = 1;
  attr.build_id = grant.build_ids ? 1 : 0;
  attr.comm = 1;
  attr.comm_exec = 1;
  attr.task = 1;
  attr.sample_id_all = 1;
  attr.use_clockid = 1;
  attr.clockid = CLOCK_MONOTONIC;  // the recording clock's source
  attr.watermark = 1;
  attr.wakeup_watermark = static_cast<uint32_t>(ring_bytes / 4);
  return attr;
}

std::string paranoid_text() {
  auto paranoid = read_perf_event_paranoid();
  return paranoid ? "kernel.perf_event_paranoid is " + std::to_string(*paranoid)
                  : std::string("kernel.perf_event_paranoid cannot be read");
}

Error refused(pid_t pid, int error) {
  std::string cause = "perf_event_open on PID " + std::to_string(pid) + ": " + std::strerror(error) + " (" +
                      paranoid_text();
  if (error == EACCES || error == EPERM) {
    cause += "; user-space profiling of your own processes needs it at 2 or less "
             "(sysctl kernel.perf_event_paranoid=2), or CAP_PERFMON)";
  } else if (error == ENOSYS || error == ENOENT) {
    cause += "; this kernel has no perf events (CONFIG_PERF_EVENTS))";
  } else {
    cause += ")";
  }
  return Error{cause};
}

}  // namespace

void read_ring_records(std::span<const unsigned char> data, uint64_t head, uint64_t& tail,
                       const PerfRecordVisitor& visit) {
  std::vector<unsigned char> wrapped;
  const uint64_t size = data.size();
  while (head - tail >= sizeof(perf_event_header)) {
    perf_event_header header;
    auto copy_out = [&](unsigned char* out, uint64_t from, size_t count) {
      size_t at = static_cast<size_t>(from % size);
      size_t first = std::min<size_t>(count, static_cast<size_t>(size) - at);
      std::memcpy(out, data.data() + at, first);
      std::memcpy(out + first, data.data(), count - first);
    };
    copy_out(reinterpret_cast<unsigned char*>(&header), tail, sizeof header);
    if (header.size < sizeof header || header.size > head - tail) {
      tail = head;  // a torn or damaged record: nothing after it can be framed
      return;
    }
    size_t at = static_cast<size_t>(tail % size);
    if (at + header.size <= size) {
      visit(data.subspan(at, header.size));
    } else {
      wrapped.resize(header.size);
      copy_out(wrapped.data(), tail, header.size);
      visit(wrapped);
    }
    tail += header.size;
  }
}

PerfRing::PerfRing(PerfRing&& other) noexcept
    : fd_(std::move(other.fd_)),
      mapped_(std::exchange(other.mapped_, nullptr)),
      mapped_bytes_(std::exchange(other.mapped_bytes_, 0)) {}

PerfRing::~PerfRing() {
  if (mapped_) {
    ::munmap(mapped_, mapped_bytes_);
  }
}

void PerfRing::drain(const PerfRecordVisitor& visit) {
  auto* page = static_cast<perf_event_mmap_page*>(mapped_);
  // The kernel writes head after the records (a release): acquire pairs with it.
  uint64_t head = __atomic_load_n(&page->data_head, __ATOMIC_ACQUIRE);
  uint64_t tail = page->data_tail;
  std::span<const unsigned char> data(static_cast<const unsigned char*>(mapped_) + page->data_offset,
                                      static_cast<size_t>(page->data_size));
  read_ring_records(data, head, tail, visit);
  // Released after reading: the kernel may overwrite what lies before the new tail.
  __atomic_store_n(&page->data_tail, tail, __ATOMIC_RELEASE);
}

Result<CpuSampling> CpuSampling::open_task(pid_t pid, const CpuSamplingRequest& request) {
  const size_t page_bytes = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  const size_t ring_bytes = kRingDataPages * page_bytes;
  const long cpus = ::sysconf(_SC_NPROCESSORS_CONF);
  CpuSampling sampling;
  // What this kernel and its settings grant is learned on the first CPU: kernel time
  // first (paranoid 1 or less, or CAP_PERFMON), then user space alone; build-ids in
  // MMAP2 records only from Linux 5.12 (EINVAL before); copies of user stacks on x86-64
  // (Linux 3.7), else none.
  sampling.grant_ = {true, true, kCopyUserStacks};
  for (long cpu = 0; cpu < cpus; ++cpu) {
    int fd = -1;
    for (;;) {
      perf_event_attr attr = sampling_attr(request, sampling.grant_, ring_bytes);
      fd = perf_event_open(attr, pid, static_cast<int>(cpu));
      if (fd >= 0 || !sampling.rings_.empty()) {
        break;
      }
      if (errno == EINVAL && sampling.grant_.build_ids) {
        sampling.grant_.build_ids = false;
      } else if (errno == EINVAL && sampling.grant_.user_stacks) {
        sampling.grant_.user_stacks = false;
      } else if ((errno == EACCES || errno == EPERM) && sampling.grant_.kernel_time) {
        sampling.grant_.kernel_time = false;
      } else {
        break;
      }
    }
    if (fd < 0) {
      if (errno == ENODEV || errno == EINVAL) {
        continue;  // an offline CPU (ENODEV), or one this event cannot count on
      }
      return refused(pid, errno);
    }
    PerfRing ring;
    ring.fd_.reset(fd);
    ring.mapped_bytes_ = page_bytes + ring_bytes;
    void* mapped = ::mmap(nullptr, ring.mapped_bytes_, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (mapped == MAP_FAILED) {
      // Over the locked-memory allowance for perf buffers (kernel.perf_event_mlock_kb).
      return Error{"mmap of a perf ring buffer of " + std::to_string(ring.mapped_bytes_ / 1024) +
                   " KiB: " + std::strerror(errno) + " (see kernel.perf_event_mlock_kb and ulimit -l)"};
    }
    ring.mapped_ = mapped;
    sampling.rings_.push_back(std::move(ring));
  }
  if (sampling.rings_.empty()) {
    return refused(pid, errno);
  }
  return sampling;
}

std::optional<int> read_perf_event_paranoid() {
  std::ifstream file("/proc/sys/kernel/perf_event_paranoid");
  std::string text;
  if (!(file >> text)) {
    return std::nullopt;
  }
  return parse_int<int>(text);
}

}  // namespace canopy::probe
