// Unwinding a sampled user stack by DWARF CFI (libdwfl), in the recorder, soon after the
// sample was read: the thread's registers and a copy of the top of its stack, which the
// kernel took at the sample (PERF_SAMPLE_REGS_USER and STACK_USER, x86-64), and the
// executable mappings the recorder knows for the process. Frames come out as
// addresses; nothing of the copy is kept. Frame pointers are not needed, and a leaf
// function's caller is not skipped.
//
// Cheap once warm: each object file is opened once for all processes (object_files.h),
// and each process keeps its libdwfl session, with the CFI it has looked up, while its
// mappings stay the same; both caches are bounded.
#pragma once

#include <sys/types.h>

#include <array>
#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "unwind/object_files.h"

namespace canopy::unwind {

// x86-64's DWARF registers 0 to 16, in DWARF's order: rax, rdx, rcx, rbx, rsi, rdi, rbp,
// rsp, r8 to r15, and the return address column, rip.
inline constexpr size_t kDwarfRegisterCount = 17;
using DwarfRegisters = std::array<uint64_t, kDwarfRegisterCount>;
inline constexpr size_t kDwarfBp = 6;
inline constexpr size_t kDwarfSp = 7;
inline constexpr size_t kDwarfIp = 16;

// One executable mapping of an object, as the recorder knows it.
struct ObjectMapping {
  uint64_t start = 0;  // [start, end) in the process
  uint64_t end = 0;
  uint64_t bias = 0;      // address in the process - bias = address in the object
  int64_t object_id = 0;  // from StackUnwinder::object_id
  bool operator==(const ObjectMapping&) const = default;
};

struct UnwoundFrame {
  uint64_t pc = 0;
  // The interrupted instruction itself (the first frame, or one a signal interrupted);
  // otherwise pc is a return address, just after the call.
  bool activation = false;
  // rbp as it was in this frame (the CFI restores it like any callee-saved register);
  // nullopt where the CFI leaves it unknown. Where it changes from one frame to its
  // caller, the callee had set up a frame record: what a frame-pointer walk reads.
  std::optional<uint64_t> rbp;
};

struct UnwoundStack {
  std::vector<UnwoundFrame> frames;  // innermost first; the first is the sampled pc
  // The walk reached the outermost frame (_start, or a thread's start: the CFI says
  // there is no caller). Otherwise it stopped short: at the end of the stack copy, at
  // code without CFI (JIT code, an object that cannot be read), or at the frame limit.
  bool complete = false;
};

class StackUnwinder {
 public:
  StackUnwinder();
  ~StackUnwinder();
  StackUnwinder(const StackUnwinder&) = delete;
  StackUnwinder& operator=(const StackUnwinder&) = delete;

  // A number for the object at `path` with this build-id ("" when unknown), the same
  // for the same pair; ObjectMapping names objects by it.
  int64_t object_id(const std::string& path, const std::string& build_id_hex);

  // The stack of a sample of thread `tid` of process `pid`: `registers` when it was
  // taken, `stack` the bytes from its stack pointer up, `mappings` the process's
  // executable mappings then (any order).
  UnwoundStack unwind(pid_t pid, pid_t tid, std::span<const ObjectMapping> mappings, const DwarfRegisters& registers,
                      std::span<const unsigned char> stack);
  // The process has exited or exec'd: its session goes.
  void forget(pid_t pid);

  // What unwinding reads memory from, during one unwind() (public for libdwfl's callbacks).
  struct Sample {
    pid_t tid = 0;
    const DwarfRegisters* registers = nullptr;
    std::span<const unsigned char> stack;
    bool read_past_copy = false;  // the CFI asked for a word the copy does not hold
    UnwoundStack* out = nullptr;
  };

 private:
  struct Process;
  Process* session(pid_t pid, std::span<const ObjectMapping> mappings);

  ObjectFiles files_;
  std::map<std::pair<std::string, std::string>, int64_t> object_ids_;
  std::vector<std::pair<std::string, std::string>> objects_;  // by id
  std::unordered_map<pid_t, std::unique_ptr<Process>> processes_;
  std::list<pid_t> process_order_;  // most recently used first
  Sample sample_;
};

}  // namespace canopy::unwind
