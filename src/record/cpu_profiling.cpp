#include "record/cpu_profiling.h"

#include <algorithm>

#include "common/vdso_image.h"
#include "probe/elf_load_bias.h"
#include "probe/running_tree.h"
#include "probe/system.h"
#include "unwind/frame_pointer_join.h"

namespace canopy::record {
namespace {

// Mappings that are no object on disk: anonymous memory (JIT code, "//anon") and the
// like. Their addresses stay absolute; pseudo-files such as "[vdso]" are kept as
// modules, named by path in reports.
bool is_object(const std::string& path) { return !path.empty() && path.rfind("//anon", 0) != 0; }

}  // namespace

Result<CpuProfiling> CpuProfiling::open_gated(pid_t pid, int64_t frequency_hz) {
  ASSIGN_OR_RETURN(auto sampling, probe::CpuSampling::open_task(pid, {frequency_hz, /*enable_on_exec=*/true}));
  std::vector<probe::CpuSampling> samplings;
  samplings.push_back(std::move(sampling));
  return CpuProfiling(std::move(samplings), frequency_hz, {});
}

Result<std::vector<probe::CpuSampling>> CpuProfiling::open_threads(pid_t pid, int64_t frequency_hz) {
  std::vector<probe::CpuSampling> samplings;
  for (pid_t tid : probe::read_thread_ids(pid)) {
    auto opened = probe::CpuSampling::open_task(tid, {frequency_hz, /*enable_on_exec=*/false});
    if (opened) {
      samplings.push_back(std::move(*opened));
    } else if (samplings.empty()) {
      return opened.error();  // the leader: the kernel's answer for the whole process
    }  // a thread that ended since the listing: nothing to sample
  }
  if (samplings.empty()) {
    return Error{"perf_event_open on PID " + std::to_string(pid) + ": it has no threads left"};
  }
  return samplings;
}

Result<CpuProfiling> CpuProfiling::open_running(pid_t pid, int64_t frequency_hz) {
  ASSIGN_OR_RETURN(auto samplings, open_threads(pid, frequency_hz));
  return CpuProfiling(std::move(samplings), frequency_hz, {pid});
}

bool CpuProfiling::add_running(pid_t pid) {
  auto opened = open_threads(pid, frequency_hz_);
  if (!opened) {
    return false;
  }
  for (probe::CpuSampling& sampling : *opened) {
    samplings_.push_back(std::move(sampling));
  }
  add_mappings_from_proc(pid);
  return true;
}

void CpuProfiling::add_mappings_from_proc(pid_t pid) {
  // Read after the events were opened: a mapping made since is in both, and the
  // kernel's record, later in time, replaces this one.
  auto mappings = probe::read_executable_mappings(pid);
  for (const probe::ExecutableMapping& m : mappings.value_or(std::vector<probe::ExecutableMapping>{})) {
    probe::PerfMmap mmap{pid, pid, m.start, m.end - m.start, m.file_offset, "", m.path};
    if (m.path.empty()) {
      mmap.path = "//anon";
    }
    add_mapping(mmap);
  }
}

std::string CpuProfiling::description() const {
  const probe::CpuSamplingGrant& grant = samplings_.front().grant();
  return std::to_string(frequency_hz_) + " Hz, " +
         (grant.kernel_time ? "user and kernel time" : "user time only (kernel time unseen)") +
         (grant.user_stacks ? ", stacks by DWARF CFI and frame pointers" : ", frame-pointer stacks") +
         (grant.build_ids ? "" : ", no build-ids from the kernel");
}

void CpuProfiling::start(store::Writer& writer, ProfileStacks& stacks, const RecordingClock& clock,
                         ProcessIdOf process_id_of) {
  writer_ = &writer;
  stacks_ = &stacks;
  clock_ = &clock;
  process_id_of_ = std::move(process_id_of);
  for (pid_t pid : running_) {
    add_mappings_from_proc(pid);
  }
  running_.clear();
}

std::vector<int> CpuProfiling::poll_fds() const {
  std::vector<int> fds;
  for (const probe::CpuSampling& sampling : samplings_) {
    for (const probe::PerfRing& ring : sampling.rings()) {
      fds.push_back(ring.fd());
    }
  }
  return fds;
}

void CpuProfiling::drain_rings() {
  for (probe::CpuSampling& sampling : samplings_) {
    for (probe::PerfRing& ring : sampling.rings()) {
      ring.drain([&](std::span<const unsigned char> bytes) {
        if (parse_stack_.capacity() == 0 && !spare_stacks_.empty()) {
          parse_stack_ = std::move(spare_stacks_.back());
          spare_stacks_.pop_back();
        }
        if (auto record = probe::parse_perf_record(bytes, parse_stack_)) {
          waiting_.push_back({probe::perf_record_time_ns(bytes), std::move(*record)});
        }
      });
    }
  }
  std::stable_sort(waiting_.begin(), waiting_.end(),
                   [](const TimedRecord& a, const TimedRecord& b) { return a.time_ns < b.time_ns; });
}

void CpuProfiling::read_available() {
  if (!writer_) {
    return;
  }
  // A record written before this moment is in its ring by now, whichever CPU it is
  // on; one written after may have a predecessor on a ring already read.
  const uint64_t now_ns = probe::now_monotonic_ns();
  drain_rings();
  auto later = std::find_if(waiting_.begin(), waiting_.end(), [&](const TimedRecord& r) { return r.time_ns > now_ns; });
  for (auto it = waiting_.begin(); it != later; ++it) {
    handle(it->record);
    reuse_stack_buffer(it->record);
  }
  waiting_.erase(waiting_.begin(), later);
}

void CpuProfiling::finish() {
  if (!writer_) {
    return;
  }
  drain_rings();
  for (TimedRecord& r : waiting_) {
    handle(r.record);
    reuse_stack_buffer(r.record);
  }
  waiting_.clear();
}

void CpuProfiling::handle(const probe::PerfRecord& record) {
  if (const auto* sample = std::get_if<probe::PerfSample>(&record)) {
    add_sample(*sample);
  } else if (const auto* mmap = std::get_if<probe::PerfMmap>(&record)) {
    add_mapping(*mmap);
  } else if (const auto* comm = std::get_if<probe::PerfComm>(&record)) {
    if (comm->exec) {
      mappings_.erase(comm->pid);  // a new program: the old one's mappings are gone
      unwinder_->forget(comm->pid);
    }
  } else if (const auto* fork = std::get_if<probe::PerfFork>(&record)) {
    if (fork->pid != fork->parent_pid) {  // a process (a thread shares its parent's)
      process_ids_.erase(fork->pid);
      auto parent = mappings_.find(fork->parent_pid);
      if (parent != mappings_.end()) {
        mappings_[fork->pid] = parent->second;
      }
    }
  } else if (const auto* exit = std::get_if<probe::PerfExit>(&record)) {
    if (exit->pid == exit->tid) {
      mappings_.erase(exit->pid);
      unwinder_->forget(exit->pid);
    }
  } else if (const auto* lost = std::get_if<probe::PerfLost>(&record)) {
    samples_lost_ += static_cast<int64_t>(lost->lost);
  }
}

void CpuProfiling::reuse_stack_buffer(probe::PerfRecord& record) {
  // As many as one read's samples wait at most (two rings of some 60); more are freed.
  constexpr size_t kSpareStacks = 128;
  auto* sample = std::get_if<probe::PerfSample>(&record);
  if (sample != nullptr && sample->user_stack.capacity() > 0 && spare_stacks_.size() < kSpareStacks) {
    spare_stacks_.push_back(std::move(sample->user_stack));
  }
}

void CpuProfiling::add_mapping(const probe::PerfMmap& reported) {
  if (reported.length == 0) {
    return;
  }
  probe::PerfMmap mmap = reported;
  if (mmap.build_id_hex.empty() && (mmap.path.starts_with('/') || mmap.path == kVdsoMapName)) {
    // A kernel before 5.12 sends none, and no kernel one for the vDSO: the file's own, as
    // it is on disk now, or the recorder's vDSO (the same image), read once. The vDSO's
    // tells a report under another kernel that its vDSO is not this one.
    auto [known, added] = file_build_ids_.try_emplace(mmap.path);
    if (added) {
      known->second = probe::elf_build_id_hex(mmap.path);
    }
    mmap.build_id_hex = known->second;
  }
  std::vector<Mapping>& mappings = mappings_[mmap.pid];
  const uint64_t end = mmap.start + mmap.length;
  // What the new mapping covers is unmapped (MAP_FIXED over an old one, dlclose and dlopen).
  std::erase_if(mappings, [&](const Mapping& m) { return m.start < end && mmap.start < m.end; });
  if (!is_object(mmap.path)) {
    return;
  }
  // The load bias is a property of the object and the mapped offset: the same in every
  // process that maps them, wherever ASLR put them. Read from the file once.
  auto key = std::make_tuple(mmap.path, mmap.build_id_hex, mmap.file_offset);
  auto known = vaddr_at_offset_.find(key);
  if (known == vaddr_at_offset_.end()) {
    uint64_t bias = probe::elf_load_bias(mmap.path, mmap.start, mmap.file_offset);
    known = vaddr_at_offset_.emplace(key, mmap.start - bias).first;
  }
  Mapping added{mmap.start, end, mmap.start - known->second, stacks_->module_id(mmap.path, mmap.build_id_hex),
                unwinder_->object_id(mmap.path, mmap.build_id_hex)};
  auto at = std::upper_bound(mappings.begin(), mappings.end(), added.start,
                             [](uint64_t start, const Mapping& m) { return start < m.start; });
  mappings.insert(at, added);
}

int64_t CpuProfiling::frame_id(pid_t pid, const std::vector<Mapping>& mappings, uint64_t pc) {
  auto after = std::upper_bound(mappings.begin(), mappings.end(), pc,
                                [](uint64_t value, const Mapping& m) { return value < m.start; });
  if (after != mappings.begin() && pc < std::prev(after)->end) {
    return stacks_->frame_id(std::prev(after)->module_id, pc - std::prev(after)->bias);
  }
  return stacks_->unmapped_frame_id(pid, pc);
}

// Which stack a sample gets. The DWARF unwinder's frames are right wherever it goes:
// CFI describes every instruction of code built with or without frame pointers, and a
// leaf function's caller is not skipped, so they come first. It stops short where the
// copy ends (a deep stack), or at code without CFI (JIT code, an object it cannot
// open); the kernel's frame-pointer walk had the whole stack to read, so past the last
// DWARF frame it holds (unwind/frame_pointer_join.h says which), the walk's frames are
// the rest of the same stack. Where DWARF gave nothing past the sampled instruction,
// the walk is all there is (JIT code with frame pointers, say). Where the sample has no
// copy (another architecture, a task without a user context), the walk alone.
void CpuProfiling::stack_addresses(const probe::PerfSample& sample, const std::vector<Mapping>& mappings) {
  addresses_.clear();
  auto add_frame_pointer_chain = [&](size_t from) {
    for (size_t i = from; i < sample.user_ips.size(); ++i) {
      // Every frame of the shared stack table is a return address, which readers look
      // up one byte back (the call's line). The first is the interrupted instruction
      // itself: stored one byte on, so that the same lookup lands on it.
      addresses_.push_back(sample.user_ips[i] + (i == 0 ? 1 : 0));
    }
  };
  if (sample.user_registers.empty() || sample.user_stack.empty()) {
    add_frame_pointer_chain(0);
    return;
  }
  using Register = probe::PerfUserRegister;
  static constexpr Register kDwarfOrder[unwind::kDwarfRegisterCount] = {
      Register::ax,  Register::dx,  Register::cx,  Register::bx,  Register::si,  Register::di,
      Register::bp,  Register::sp,  Register::r8,  Register::r9,  Register::r10, Register::r11,
      Register::r12, Register::r13, Register::r14, Register::r15, Register::ip};
  unwind::DwarfRegisters registers;
  for (size_t i = 0; i < registers.size(); ++i) {
    registers[i] = sample.user_register(kDwarfOrder[i]);
  }
  object_mappings_.clear();
  for (const Mapping& m : mappings) {
    object_mappings_.push_back({m.start, m.end, m.bias, m.object_id});
  }
  unwind::UnwoundStack dwarf = unwinder_->unwind(sample.pid, sample.tid, object_mappings_, registers, sample.user_stack);
  if (dwarf.frames.empty() || (dwarf.frames.size() == 1 && !dwarf.complete)) {
    add_frame_pointer_chain(0);
    return;
  }
  for (const unwind::UnwoundFrame& frame : dwarf.frames) {
    addresses_.push_back(frame.pc + (frame.activation ? 1 : 0));
  }
  if (!dwarf.complete && !dwarf.frames.back().activation) {
    if (std::optional<size_t> rest = unwind::frame_pointer_walk_resumes_at(dwarf.frames, sample.user_ips)) {
      add_frame_pointer_chain(*rest);
    }
  }
}

void CpuProfiling::add_sample(const probe::PerfSample& sample) {
  static const std::vector<Mapping> kNone;
  auto found = mappings_.find(sample.pid);
  const std::vector<Mapping>& mappings = found == mappings_.end() ? kNone : found->second;
  stack_addresses(sample, mappings);
  frames_.clear();
  for (uint64_t pc : addresses_) {
    frames_.push_back(frame_id(sample.pid, mappings, pc));
  }
  store::CpuSampleRow row;
  row.t_ms = clock_->from_monotonic_ns(sample.time_ns);
  row.process_id = process_id_of_(sample.pid);
  if (row.process_id) {
    process_ids_[sample.pid] = *row.process_id;
  } else if (auto known = process_ids_.find(sample.pid); known != process_ids_.end()) {
    row.process_id = known->second;
  }
  row.pid = sample.pid;
  row.tid = sample.tid;
  row.stack_id = stacks_->stack_id(frames_);
  writer_->add_cpu_sample(row);
  ++samples_;
}

}  // namespace canopy::record
