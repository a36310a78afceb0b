#include "probe/bpf_program.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <limits>
#include <string>

namespace canopy::probe {
namespace {

constexpr size_t kUnbound = std::numeric_limits<size_t>::max();

// The verifier's last words: what it refused ("R1 invalid mem access 'scalar'").
std::string last_line(std::string log) {
  while (!log.empty() && log.back() == '\n') {
    log.pop_back();
  }
  size_t newline = log.rfind('\n');
  return newline == std::string::npos ? log : log.substr(newline + 1);
}

}  // namespace

int bpf_call(bpf_cmd command, bpf_attr& attr) {
  return static_cast<int>(::syscall(SYS_bpf, command, &attr, sizeof attr));
}

BpfAssembler::Label BpfAssembler::new_label() {
  labels_.push_back(kUnbound);
  return labels_.size() - 1;
}

void BpfAssembler::bind(Label label) { labels_.at(label) = program_.size(); }

void BpfAssembler::emit(uint8_t code, int dst, int src, int16_t offset, int32_t imm) {
  bpf_insn insn{};
  insn.code = code;
  insn.dst_reg = static_cast<uint8_t>(dst) & 0xf;
  insn.src_reg = static_cast<uint8_t>(src) & 0xf;
  insn.off = offset;
  insn.imm = imm;
  program_.push_back(insn);
}

void BpfAssembler::jump(Label target) {
  jumps_.push_back({program_.size(), target});
  emit(BPF_JMP | BPF_JA, 0, 0, 0, 0);
}

void BpfAssembler::jump_if(uint8_t op, int reg, int32_t imm, Label target) {
  jumps_.push_back({program_.size(), target});
  emit(BPF_JMP | op | BPF_K, reg, 0, 0, imm);
}

void BpfAssembler::jump_if32(uint8_t op, int reg, int32_t imm, Label target) {
  jumps_.push_back({program_.size(), target});
  emit(BPF_JMP32 | op | BPF_K, reg, 0, 0, imm);
}

void BpfAssembler::jump_if_reg(uint8_t op, int reg, int other, Label target) {
  jumps_.push_back({program_.size(), target});
  emit(BPF_JMP | op | BPF_X, reg, other, 0, 0);
}

void BpfAssembler::load_map(int dst, int map_fd) {
  emit(BPF_LD | BPF_DW | BPF_IMM, dst, BPF_PSEUDO_MAP_FD, 0, map_fd);
  emit(0, 0, 0, 0, 0);  // the immediate's upper half
}

Result<ScopedFd> BpfAssembler::load(bpf_prog_type type, const char* what) const {
  std::vector<bpf_insn> program = program_;
  for (const Jump& jump : jumps_) {
    size_t target = labels_.at(jump.target);
    if (target == kUnbound) {
      return Error{std::string(what) + ": a jump to a label never bound"};
    }
    // Relative to the instruction after the jump.
    program[jump.instruction].off = static_cast<int16_t>(static_cast<int64_t>(target) -
                                                         static_cast<int64_t>(jump.instruction) - 1);
  }
  static const char kLicense[] = "GPL";
  auto try_load = [&](std::string* log) {
    bpf_attr attr{};
    attr.prog_type = type;
    attr.insns = reinterpret_cast<uintptr_t>(program.data());
    attr.insn_cnt = static_cast<uint32_t>(program.size());
    attr.license = reinterpret_cast<uintptr_t>(kLicense);
    if (log) {
      attr.log_buf = reinterpret_cast<uintptr_t>(log->data());
      attr.log_size = static_cast<uint32_t>(log->size());
      attr.log_level = 1;
    }
    return ScopedFd(bpf_call(BPF_PROG_LOAD, attr));
  };
  // Without a log first: a verbose log that outgrows its buffer fails the load itself.
  ScopedFd fd = try_load(nullptr);
  if (!fd) {
    int error = errno;
    std::string why = std::strerror(error);
    if (error == EACCES || error == EINVAL) {  // the verifier's refusal: ask it why
      std::string log(64 << 10, '\0');
      try_load(&log);
      if (std::string verifier = last_line(log.c_str()); !verifier.empty()) {
        why += " (" + verifier + ")";
      }
    }
    return Error{std::string(what) + ": the kernel refused the program: " + why};
  }
  return fd;
}

}  // namespace canopy::probe
