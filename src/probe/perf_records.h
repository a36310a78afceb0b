// The records of a perf_event ring buffer, as canopy's CPU profiler opens its events
// (perf_sampling.h): parsed from their bytes into plain structs. Only the record types
// and the sample layout canopy asks for are understood; anything else is skipped by
// its size, never misread. Layouts are those of <linux/perf_event.h>.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <optional>
#include <span>
#include <string>
#include <variant>
#include <vector>

namespace canopy::probe {

// The user-space registers a sample carries (PERF_SAMPLE_REGS_USER, x86-64 only): the
// sixteen general registers and the instruction pointer, which are DWARF registers 0 to
// 16 of x86-64, all that a frame's CFI may name. Their bits in sample_regs_user (the
// kernel's enum perf_event_x86_regs), in the order the sample holds their values.
enum class PerfUserRegister { ax, bx, cx, dx, si, di, bp, sp, ip, r8, r9, r10, r11, r12, r13, r14, r15, count };
inline constexpr int kPerfUserRegisterBits[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 16, 17, 18, 19, 20, 21, 22, 23};
static_assert(std::size(kPerfUserRegisterBits) == static_cast<size_t>(PerfUserRegister::count));
constexpr uint64_t perf_user_registers_mask() {
  uint64_t mask = 0;
  for (int bit : kPerfUserRegisterBits) {
    mask |= uint64_t{1} << bit;
  }
  return mask;
}

// PERF_RECORD_SAMPLE with sample_type TID | TIME | CALLCHAIN, and where the events ask
// for them (perf_sampling.h, x86-64) REGS_USER | STACK_USER.
struct PerfSample {
  int32_t pid = 0;
  int32_t tid = 0;
  uint64_t time_ns = 0;  // CLOCK_MONOTONIC (attr.use_clockid)
  // User-space addresses, innermost first: the interrupted instruction, then return
  // addresses. The kernel's context markers and any kernel addresses are left out.
  std::vector<uint64_t> user_ips;
  // The user-space registers when the sample was taken, indexed by PerfUserRegister;
  // empty when the sample has none (not asked for, or a task without a user context).
  std::vector<uint64_t> user_registers;
  // The bytes of the user stack from the sampled stack pointer up, as far as the kernel
  // could copy them (its dyn_size); empty when not asked for or nothing was copied.
  std::vector<unsigned char> user_stack;

  uint64_t user_register(PerfUserRegister which) const { return user_registers[static_cast<size_t>(which)]; }
};

// PERF_RECORD_MMAP2: an executable mapping of a file (or of anonymous memory, "//anon",
// or of a pseudo-file such as "[vdso]").
struct PerfMmap {
  int32_t pid = 0;
  int32_t tid = 0;
  uint64_t start = 0;
  uint64_t length = 0;
  uint64_t file_offset = 0;  // pgoff, in bytes
  std::string build_id_hex;  // from the kernel (attr.build_id, Linux 5.12+); empty when not sent
  std::string path;
};

// PERF_RECORD_COMM; `exec` when it comes from an exec (PERF_RECORD_MISC_COMM_EXEC):
// the process's old mappings are gone.
struct PerfComm {
  int32_t pid = 0;
  int32_t tid = 0;
  bool exec = false;
};

// PERF_RECORD_FORK: a new task, process or thread (pid == parent_pid for a thread),
// which starts with its parent's mappings.
struct PerfFork {
  int32_t pid = 0;
  int32_t parent_pid = 0;
};

// PERF_RECORD_EXIT of a task.
struct PerfExit {
  int32_t pid = 0;
  int32_t tid = 0;
};

// PERF_RECORD_LOST: samples the kernel dropped because the ring was full.
struct PerfLost {
  uint64_t lost = 0;
};

using PerfRecord = std::variant<PerfSample, PerfMmap, PerfComm, PerfFork, PerfExit, PerfLost>;

// One record, header included (the header's size is the span's). nullopt for a type
// canopy does not ask for, or a record too short for its type.
std::optional<PerfRecord> parse_perf_record(std::span<const unsigned char> record);
// The same, a sample's stack copy taking the place of `spare_stack` (a buffer of a
// sample handled before, whose capacity is reused: not another 8 KiB allocated for
// every sample); `spare_stack` is left as it was when the record is no sample.
std::optional<PerfRecord> parse_perf_record(std::span<const unsigned char> record,
                                            std::vector<unsigned char>& spare_stack);

// When the record was written (CLOCK_MONOTONIC ns): a sample's own time, and for the
// others the time sample_id_all appends (with TID | TIME: { u32 pid, tid; u64 time; }
// last). 0 for a record too short to hold it.
uint64_t perf_record_time_ns(std::span<const unsigned char> record);

}  // namespace canopy::probe
