// A small eBPF assembler: instructions with named jump targets, and loading through
// the bpf() system call. canopy's socket filters are a few dozen instructions, written
// here rather than compiled, so that the build needs neither clang's BPF target nor
// libbpf, and a reader sees every instruction the kernel runs.
#pragma once

#include <linux/bpf.h>

#include <cstdint>
#include <vector>

#include "common/result.h"
#include "common/scoped_resource.h"

namespace canopy::probe {

// bpf(2): glibc has no wrapper. -1 with errno on failure.
int bpf_call(bpf_cmd command, bpf_attr& attr);

class BpfAssembler {
 public:
  using Label = size_t;
  enum Size : uint8_t { kU8 = BPF_B, kU16 = BPF_H, kU32 = BPF_W, kU64 = BPF_DW };

  Label new_label();
  // The next instruction is the label's.
  void bind(Label label);

  // 64-bit arithmetic: dst = src, dst = imm, dst OP= imm, dst OP= src (OP: BPF_ADD,
  // BPF_AND, BPF_XOR, BPF_LSH, BPF_RSH, ...).
  void mov(int dst, int src) { emit(BPF_ALU64 | BPF_MOV | BPF_X, dst, src, 0, 0); }
  void mov_imm(int dst, int32_t imm) { emit(BPF_ALU64 | BPF_MOV | BPF_K, dst, 0, 0, imm); }
  void alu_imm(uint8_t op, int dst, int32_t imm) { emit(BPF_ALU64 | op | BPF_K, dst, 0, 0, imm); }
  void alu(uint8_t op, int dst, int src) { emit(BPF_ALU64 | op | BPF_X, dst, src, 0, 0); }
  // dst = *(size*)(src + offset); *(size*)(dst + offset) = src.
  void load(Size size, int dst, int src, int16_t offset) { emit(BPF_LDX | BPF_MEM | size, dst, src, offset, 0); }
  void store(Size size, int dst, int16_t offset, int src) { emit(BPF_STX | BPF_MEM | size, dst, src, offset, 0); }
  // *(u64*)(dst + offset) OP= src, atomically (OP: BPF_ADD, BPF_OR, BPF_AND).
  void atomic64(int32_t op, int dst, int16_t offset, int src) {
    emit(BPF_STX | BPF_ATOMIC | BPF_DW, dst, src, offset, op);
  }
  void jump(Label target);
  // if (reg OP imm) goto target (OP: BPF_JEQ, BPF_JNE, ...). The immediate is
  // sign-extended to 64 bits; jump_if32 compares the register's low 32 bits instead
  // (a u32 field such as PROC_EVENT_EXIT, 0x80000000).
  void jump_if(uint8_t op, int reg, int32_t imm, Label target);
  void jump_if32(uint8_t op, int reg, int32_t imm, Label target);
  void jump_if_reg(uint8_t op, int reg, int other, Label target);
  // dst = the map whose descriptor is `map_fd` (a 64-bit immediate: two instructions).
  void load_map(int dst, int map_fd);
  void call(bpf_func_id helper) { emit(BPF_JMP | BPF_CALL, 0, 0, 0, helper); }
  void exit() { emit(BPF_JMP | BPF_EXIT, 0, 0, 0, 0); }

  // Loads the program. On failure the message names `what` and holds the kernel
  // verifier's last line.
  Result<ScopedFd> load(bpf_prog_type type, const char* what) const;

 private:
  void emit(uint8_t code, int dst, int src, int16_t offset, int32_t imm);
  struct Jump {
    size_t instruction;
    Label target;
  };
  std::vector<bpf_insn> program_;
  std::vector<size_t> labels_;  // each label's instruction; SIZE_MAX until bound
  std::vector<Jump> jumps_;     // offsets resolved at load()
};

}  // namespace canopy::probe
