#include "probe/tree_filter.h"

// clang-format off: linux/connector.h needs the types linux/netlink.h brings.
#include <linux/netlink.h>
#include <linux/connector.h>
#include <linux/cn_proc.h>
// clang-format on
#include <linux/genetlink.h>
#include <linux/taskstats.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstring>
#include <deque>
#include <fstream>
#include <string>
#include <utility>

#include "probe/bpf_program.h"
#include "probe/process_files.h"

namespace canopy::probe {
namespace {

// The map's 64-bit words: two counters, then the bitmap, bit PID % 64 of word
// kFirstSetWord + PID / 64.
constexpr uint32_t kEventsDroppedWord = 0;
constexpr uint32_t kRecordsDroppedWord = 1;
constexpr uint32_t kFirstSetWord = 2;

// The kernel's PID_MAX_LIMIT on 64-bit machines, for a kernel.pid_max we cannot read.
constexpr int64_t kPidLimitFallback = 4 << 20;

// Registers: R1-R5 are a call's arguments (and clobbered by it), R0 its result,
// R6-R9 survive calls, R10 is the read-only frame pointer.
constexpr int R0 = BPF_REG_0, R1 = BPF_REG_1, R2 = BPF_REG_2, R3 = BPF_REG_3, R4 = BPF_REG_4, R6 = BPF_REG_6,
              R7 = BPF_REG_7, R8 = BPF_REG_8, R9 = BPF_REG_9, FP = BPF_REG_10;

// A socket filter returns how many bytes of the message to keep.
constexpr int32_t kKeepAll = -1;
constexpr int32_t kDrop = 0;

int64_t read_pid_max() {
  std::ifstream file("/proc/sys/kernel/pid_max");
  int64_t pid_max = 0;
  return file >> pid_max && pid_max > 0 ? pid_max : kPidLimitFallback;
}

// Copies `bytes` of the message (R1) from offset R2 to the stack at FP + `slot`.
// R0 = 0 when the message has them.
void copy_message(BpfAssembler& a, int16_t slot, int16_t bytes) {
  a.mov(R3, FP);
  a.alu_imm(BPF_ADD, R3, slot);
  a.mov_imm(R4, bytes);
  a.call(BPF_FUNC_skb_load_bytes);
}

// R0 = the address of the map's word R1, or 0 past the map's end. Uses the stack slot
// at FP + `key_slot` (4 bytes) for the key.
void find_word(BpfAssembler& a, int map_fd, int16_t key_slot) {
  a.store(BpfAssembler::kU32, FP, key_slot, R1);
  a.load_map(R1, map_fd);
  a.mov(R2, FP);
  a.alu_imm(BPF_ADD, R2, key_slot);
  a.call(BPF_FUNC_map_lookup_elem);
}

// R0 = the address of `pid_reg`'s bitmap word, or 0 past the bitmap's end.
void find_bitmap_word(BpfAssembler& a, int map_fd, int pid_reg, int16_t key_slot) {
  a.mov(R1, pid_reg);
  a.alu_imm(BPF_RSH, R1, 6);
  a.alu_imm(BPF_ADD, R1, kFirstSetWord);
  find_word(a, map_fd, key_slot);
}

// R9 = whether `pid_reg` is in the set: 1 also for a PID past the bitmap, which the
// filter cannot judge, so lets pass.
void test_member(BpfAssembler& a, int map_fd, int pid_reg, int16_t key_slot) {
  auto done = a.new_label();
  find_bitmap_word(a, map_fd, pid_reg, key_slot);
  a.mov_imm(R9, 1);
  a.jump_if(BPF_JEQ, R0, 0, done);
  a.load(BpfAssembler::kU64, R1, R0, 0);
  a.mov(R2, pid_reg);
  a.alu_imm(BPF_AND, R2, 63);
  a.alu(BPF_RSH, R1, R2);
  a.alu_imm(BPF_AND, R1, 1);
  a.mov(R9, R1);
  a.bind(done);
}

// The two ways out: `drop` counts the message in `counter_word` first.
void emit_endings(BpfAssembler& a, int map_fd, uint32_t counter_word, int16_t key_slot, BpfAssembler::Label keep,
                  BpfAssembler::Label drop) {
  auto out = a.new_label();
  a.bind(drop);
  a.mov_imm(R1, static_cast<int32_t>(counter_word));
  find_word(a, map_fd, key_slot);
  a.jump_if(BPF_JEQ, R0, 0, out);
  a.mov_imm(R1, 1);
  a.atomic64(BPF_ADD, R0, 0, R1);
  a.bind(out);
  a.mov_imm(R0, kDrop);
  a.exit();
  a.bind(keep);
  a.mov_imm(R0, kKeepAll);
  a.exit();
}

// The process connector's message: nlmsghdr, cn_msg, then proc_event. The program
// copies the event's head, up to the first 16 bytes of its data (a fork's four PIDs),
// to the stack at FP + kEvent.
constexpr int32_t kEventAt = NLMSG_LENGTH(0) + offsetof(cn_msg, data);
constexpr int16_t kEventBytes = offsetof(proc_event, event_data) + 16;
constexpr int16_t kEvent = -kEventBytes;
constexpr int16_t kEventKey = kEvent - 8;
constexpr int16_t field(size_t offset) { return static_cast<int16_t>(kEvent + static_cast<int16_t>(offset)); }
static_assert(offsetof(proc_event, event_data.fork.child_tgid) + 4 <= kEventBytes);
static_assert(offsetof(proc_event, event_data.exit.process_tgid) + 4 <= kEventBytes);
static_assert(offsetof(proc_event, event_data.exec.process_tgid) + 4 <= kEventBytes);

Result<ScopedFd> process_events_program(int map_fd) {
  BpfAssembler a;
  auto keep = a.new_label(), drop = a.new_label(), fork = a.new_label(), member_only = a.new_label(),
       clear = a.new_label();
  a.mov(R6, R1);  // the message (struct __sk_buff), kept across calls
  a.mov_imm(R2, kEventAt);
  copy_message(a, kEvent, kEventBytes);
  a.jump_if(BPF_JNE, R0, 0, keep);  // not an event as we know them: the recorder decides
  a.load(BpfAssembler::kU32, R1, FP, field(offsetof(proc_event, what)));
  a.jump_if32(BPF_JEQ, R1, proc_event::PROC_EVENT_FORK, fork);
  // An exec or an exit (of any thread: its exit record precedes it) is the set's
  // process's, by its thread group. The PIDs are at the same place in both.
  static_assert(offsetof(proc_event, event_data.exec.process_tgid) ==
                offsetof(proc_event, event_data.exit.process_tgid));
  a.load(BpfAssembler::kU32, R7, FP, field(offsetof(proc_event, event_data.exec.process_tgid)));
  a.jump_if32(BPF_JEQ, R1, proc_event::PROC_EVENT_EXEC, member_only);
  a.jump_if32(BPF_JEQ, R1, static_cast<int32_t>(proc_event::PROC_EVENT_EXIT), member_only);
  a.jump(drop);  // uid, gid, sid, comm, ptrace, coredump: never read

  a.bind(fork);
  a.load(BpfAssembler::kU32, R8, FP, field(offsetof(proc_event, event_data.fork.child_tgid)));
  a.load(BpfAssembler::kU32, R1, FP, field(offsetof(proc_event, event_data.fork.child_pid)));
  a.jump_if_reg(BPF_JNE, R1, R8, drop);  // a new thread of its process
  a.load(BpfAssembler::kU32, R7, FP, field(offsetof(proc_event, event_data.fork.parent_tgid)));
  test_member(a, map_fd, R7, kEventKey);
  // The child's bit follows its parent's, at once, before the child can run.
  find_bitmap_word(a, map_fd, R8, kEventKey);
  a.jump_if(BPF_JEQ, R0, 0, keep);  // past the bitmap
  a.mov_imm(R1, 1);
  a.mov(R2, R8);
  a.alu_imm(BPF_AND, R2, 63);
  a.alu(BPF_LSH, R1, R2);
  a.jump_if(BPF_JEQ, R9, 0, clear);
  a.atomic64(BPF_OR, R0, 0, R1);
  a.jump(keep);
  a.bind(clear);
  a.alu_imm(BPF_XOR, R1, -1);
  a.atomic64(BPF_AND, R0, 0, R1);
  a.jump(drop);

  a.bind(member_only);
  test_member(a, map_fd, R7, kEventKey);
  a.jump_if(BPF_JEQ, R9, 0, drop);
  a.jump(keep);

  emit_endings(a, map_fd, kEventsDroppedWord, kEventKey, keep, drop);
  return a.load(BPF_PROG_TYPE_SOCKET_FILTER, "process events filter");
}

// A taskstats exit record: nlmsghdr, genlmsghdr, then the attribute AGGR_PID holding
// PID (the thread) and STATS (struct taskstats, whose ac_tgid is the process), with a
// NULL attribute before STATS where the machine needs it 8-byte aligned
// (nla_reserve_64bit). The program copies the head, up to STATS's header, to the stack.
constexpr int16_t kHeadBytes = 40;
constexpr int16_t kHead = -kHeadBytes;
constexpr int16_t kTgid = kHead - 8;
constexpr int16_t kRecordKey = kHead - 16;
constexpr int16_t kGenlAt = NLMSG_HDRLEN;
constexpr int16_t kAggrAt = NLMSG_HDRLEN + GENL_HDRLEN;
constexpr int16_t kPidAt = kAggrAt + NLA_HDRLEN;
constexpr int16_t kAfterPidAt = kPidAt + NLA_HDRLEN + 4;
constexpr int16_t head(size_t offset) { return static_cast<int16_t>(kHead + static_cast<int16_t>(offset)); }
static_assert(kAfterPidAt + NLA_HDRLEN + offsetof(nlattr, nla_type) + 2 <= kHeadBytes);

// R1 = the type of the attribute at `at` in the copied head, without its flags.
void load_attribute_type(BpfAssembler& a, int16_t at) {
  a.load(BpfAssembler::kU16, R1, FP, head(at + offsetof(nlattr, nla_type)));
  a.alu_imm(BPF_AND, R1, NLA_TYPE_MASK);
}

Result<ScopedFd> exit_records_program(int map_fd, int family) {
  BpfAssembler a;
  auto keep = a.new_label(), drop = a.new_label(), stats_header = a.new_label(), judge = a.new_label();
  a.mov(R6, R1);
  a.mov_imm(R2, 0);
  copy_message(a, kHead, kHeadBytes);
  a.jump_if(BPF_JNE, R0, 0, keep);  // shorter: an acknowledgement, an error
  a.load(BpfAssembler::kU16, R1, FP, head(offsetof(nlmsghdr, nlmsg_type)));
  a.jump_if32(BPF_JNE, R1, family, keep);
  a.load(BpfAssembler::kU8, R1, FP, head(kGenlAt + offsetof(genlmsghdr, cmd)));
  a.jump_if32(BPF_JNE, R1, TASKSTATS_CMD_NEW, keep);
  load_attribute_type(a, kAggrAt);
  a.jump_if32(BPF_JNE, R1, TASKSTATS_TYPE_AGGR_PID, keep);
  load_attribute_type(a, kPidAt);
  a.jump_if32(BPF_JNE, R1, TASKSTATS_TYPE_PID, keep);
  a.load(BpfAssembler::kU32, R7, FP, head(kPidAt + NLA_HDRLEN));  // the thread
  a.mov_imm(R8, kAfterPidAt);
  load_attribute_type(a, kAfterPidAt);
  a.jump_if32(BPF_JNE, R1, TASKSTATS_TYPE_NULL, stats_header);
  a.mov_imm(R8, kAfterPidAt + NLA_HDRLEN);  // after the padding
  load_attribute_type(a, kAfterPidAt + NLA_HDRLEN);
  a.bind(stats_header);
  a.jump_if32(BPF_JNE, R1, TASKSTATS_TYPE_STATS, keep);
  a.mov(R1, R6);
  a.mov(R2, R8);
  a.alu_imm(BPF_ADD, R2, NLA_HDRLEN + offsetof(taskstats, ac_tgid));
  copy_message(a, kTgid, 4);
  a.jump_if(BPF_JNE, R0, 0, keep);
  a.load(BpfAssembler::kU32, R1, FP, kTgid);
  a.jump_if32(BPF_JEQ, R1, 0, judge);  // 0 before taskstats version 11: judge by the thread
  a.mov(R7, R1);
  a.bind(judge);
  test_member(a, map_fd, R7, kRecordKey);
  a.jump_if(BPF_JEQ, R9, 0, drop);
  a.jump(keep);

  emit_endings(a, map_fd, kRecordsDroppedWord, kRecordKey, keep, drop);
  return a.load(BPF_PROG_TYPE_SOCKET_FILTER, "exit records filter");
}

Status attach(int socket_fd, const Result<ScopedFd>& program) {
  if (!program) {
    return program.error();
  }
  int fd = program->get();
  if (::setsockopt(socket_fd, SOL_SOCKET, SO_ATTACH_BPF, &fd, sizeof fd) != 0) {
    return Error{std::string("cannot attach the filter: ") + std::strerror(errno)};
  }
  return Ok{};  // the socket holds the program now; our descriptor can close
}

std::string why_not(int error) {
  if (error == EPERM || error == EACCES) {
    return "not permitted (needs CAP_BPF)";
  }
  return std::strerror(error);
}

}  // namespace

Result<TreeFilter> TreeFilter::create() {
  const int64_t pid_limit = read_pid_max();
  bpf_attr attr{};
  attr.map_type = BPF_MAP_TYPE_ARRAY;
  attr.key_size = sizeof(uint32_t);
  attr.value_size = sizeof(uint64_t);
  attr.max_entries = static_cast<uint32_t>(kFirstSetWord + (pid_limit + 63) / 64);
  attr.map_flags = BPF_F_MMAPABLE;
  std::memcpy(attr.map_name, "canopy_tree", sizeof "canopy_tree");
  ScopedFd map(bpf_call(BPF_MAP_CREATE, attr));
  if (!map) {
    return Error{"tree filter: cannot create its map: " + why_not(errno)};
  }
  const auto page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  const size_t bytes = (attr.max_entries * sizeof(uint64_t) + page - 1) / page * page;
  void* words = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, map.get(), 0);
  if (words == MAP_FAILED) {
    return Error{std::string("tree filter: cannot map its map: ") + std::strerror(errno)};
  }
  TreeFilter filter(std::move(map), static_cast<uint64_t*>(words), bytes, pid_limit);
  filter.admit(::getpid());
  return filter;
}

TreeFilter::TreeFilter(ScopedFd map, uint64_t* words, size_t mapped_bytes, int64_t pid_limit)
    : map_(std::move(map)), words_(words), mapped_bytes_(mapped_bytes), pid_limit_(pid_limit) {}

TreeFilter::TreeFilter(TreeFilter&& other) noexcept
    : map_(std::move(other.map_)),
      words_(std::exchange(other.words_, nullptr)),
      mapped_bytes_(other.mapped_bytes_),
      pid_limit_(other.pid_limit_) {}

TreeFilter::~TreeFilter() {
  if (words_) {
    ::munmap(words_, mapped_bytes_);
  }
}

Status TreeFilter::filter_process_events(int fd) const {
  return attach(fd, process_events_program(map_.get()));
}

Status TreeFilter::filter_exit_records(int fd, int family) const {
  return attach(fd, exit_records_program(map_.get(), family));
}

void TreeFilter::admit(pid_t pid) {
  if (pid > 0 && pid < pid_limit_) {
    // Atomic: the kernel sets and clears other bits of the same word at each fork.
    __atomic_fetch_or(&words_[kFirstSetWord + pid / 64], uint64_t{1} << (pid % 64), __ATOMIC_SEQ_CST);
  }
}

bool TreeFilter::admitted(pid_t pid) const {
  if (pid <= 0 || pid >= pid_limit_) {
    return pid > 0;  // past the bitmap: the filters let it pass
  }
  return (__atomic_load_n(&words_[kFirstSetWord + pid / 64], __ATOMIC_SEQ_CST) >> (pid % 64)) & 1;
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
  return static_cast<int64_t>(__atomic_load_n(&words_[kEventsDroppedWord], __ATOMIC_RELAXED));
}

int64_t TreeFilter::exit_records_dropped() const {
  return static_cast<int64_t>(__atomic_load_n(&words_[kRecordsDroppedWord], __ATOMIC_RELAXED));
}

}  // namespace canopy::probe
