#include "unwind/stack_unwinder.h"

#include <dwarf.h>
#include <elfutils/libdwfl.h>

#include <algorithm>
#include <cstring>

#include "common/scoped_resource.h"

namespace canopy::unwind {
namespace {

using ScopedDwfl = ScopedResource<Dwfl*, dwfl_end, nullptr>;

// At most 64 processes keep a libdwfl session (a build runs a few at a time; a session
// is a few KiB, and rebuilt in microseconds when needed again), and 64 object files stay
// open (the few a process maps, shared by all: libc, the dynamic loader, the programs).
constexpr size_t kProcessSessions = 64;
constexpr size_t kOpenObjects = 64;
// As deep as the kernel's own frame-pointer walk goes (kernel.perf_event_max_stack).
constexpr size_t kMaxFrames = 127;

// The module's ELF is the one ObjectFiles opened, not a file found by name: libdwfl
// ends its own reference when the session ends, and never closes our descriptor (-1).
int find_object_elf(Dwfl_Module*, void** userdata, const char*, Dwarf_Addr, char**, Elf** elf) {
  const auto* file = static_cast<const ObjectFile*>(*userdata);
  *elf = file != nullptr ? file->new_reference() : nullptr;
  return -1;
}

// No separate debug files, and no debuginfod: .eh_frame is in the object itself, and the
// recorder must not search the file system or the network while the tree runs.
int find_no_debuginfo(Dwfl_Module*, void**, const char*, Dwarf_Addr, const char*, const char*, GElf_Word, char**) {
  return -1;
}

const Dwfl_Callbacks kModuleCallbacks = {find_object_elf, find_no_debuginfo, nullptr, nullptr};

pid_t sample_thread(Dwfl*, void* arg, void** thread_arg) {
  if (*thread_arg != nullptr) {
    return 0;  // the only thread there is: the sampled one
  }
  *thread_arg = arg;
  return static_cast<StackUnwinder::Sample*>(arg)->tid;
}

bool get_sample_thread(Dwfl*, pid_t tid, void* arg, void** thread_arg) {
  *thread_arg = arg;
  return tid == static_cast<StackUnwinder::Sample*>(arg)->tid;
}

// Only the copy: the CFI of the frames reads saved registers and return addresses from
// the stack, and nothing else of the process is at hand (it ran on since the sample).
bool read_stack_copy(Dwfl*, Dwarf_Addr address, Dwarf_Word* result, void* arg) {
  auto* sample = static_cast<StackUnwinder::Sample*>(arg);
  const uint64_t sp = (*sample->registers)[kDwarfSp];
  const uint64_t size = sample->stack.size();
  if (address >= sp && address - sp <= size && size - (address - sp) >= sizeof *result) {
    std::memcpy(result, sample->stack.data() + (address - sp), sizeof *result);
    return true;
  }
  sample->read_past_copy |= address >= sp + size;
  return false;
}

bool set_sampled_registers(Dwfl_Thread* thread, void* arg) {
  const DwarfRegisters& registers = *static_cast<StackUnwinder::Sample*>(arg)->registers;
  static_assert(sizeof(Dwarf_Word) == sizeof(uint64_t));
  if (!dwfl_thread_state_registers(thread, 0, kDwarfRegisterCount, reinterpret_cast<const Dwarf_Word*>(registers.data()))) {
    return false;
  }
  dwfl_thread_state_register_pc(thread, registers[kDwarfIp]);
  return true;
}

const Dwfl_Thread_Callbacks kThreadCallbacks = {sample_thread, get_sample_thread, read_stack_copy,
                                                set_sampled_registers, nullptr, nullptr};

int take_frame(Dwfl_Frame* frame, void* arg) {
  auto* sample = static_cast<StackUnwinder::Sample*>(arg);
  // A step whose CFI needed a word above the copy failed, whatever came of it: a frame
  // after it is libdwfl's frame-pointer guess from whatever rbp held, not the caller.
  if (sample->read_past_copy) {
    return DWARF_CB_ABORT;
  }
  Dwarf_Addr pc = 0;
  bool activation = false;
  if (!dwfl_frame_pc(frame, &pc, &activation)) {
    return DWARF_CB_ABORT;
  }
  Dwarf_Word rbp = 0;
  std::optional<uint64_t> known_rbp;
  if (dwfl_frame_reg(frame, kDwarfBp, &rbp) == 0) {
    known_rbp = rbp;
  }
  sample->out->frames.push_back({pc, activation, known_rbp});
  return sample->out->frames.size() < kMaxFrames ? DWARF_CB_OK : DWARF_CB_ABORT;
}

}  // namespace

// One process's libdwfl session: a module for each object it maps, and the thread
// callbacks above. `files` outlives `dwfl`, whose modules hold references to them.
struct StackUnwinder::Process {
  std::vector<ObjectMapping> mappings;  // as they were when the session was made
  std::vector<std::shared_ptr<const ObjectFile>> files;
  ScopedDwfl dwfl;
  bool attached = false;
  std::list<pid_t>::iterator order;
};

StackUnwinder::StackUnwinder() : files_(kOpenObjects) {}
StackUnwinder::~StackUnwinder() = default;

int64_t StackUnwinder::object_id(const std::string& path, const std::string& build_id_hex) {
  auto [known, added] = object_ids_.try_emplace({path, build_id_hex}, static_cast<int64_t>(objects_.size()));
  if (added) {
    objects_.push_back(known->first);
  }
  return known->second;
}

StackUnwinder::Process* StackUnwinder::session(pid_t pid, std::span<const ObjectMapping> mappings) {
  auto known = processes_.find(pid);
  if (known != processes_.end()) {
    Process& process = *known->second;
    process_order_.splice(process_order_.begin(), process_order_, process.order);
    if (std::equal(mappings.begin(), mappings.end(), process.mappings.begin(), process.mappings.end())) {
      return &process;
    }
    // Mapped or unmapped since: a new session (libdwfl's module list is made once).
    process_order_.erase(process.order);
    processes_.erase(known);
  }
  auto process = std::make_unique<Process>();
  process->mappings.assign(mappings.begin(), mappings.end());
  process->dwfl.reset(dwfl_begin(&kModuleCallbacks));
  if (!process->dwfl) {
    return nullptr;
  }
  dwfl_report_begin(process->dwfl.get());
  std::vector<std::pair<int64_t, uint64_t>> reported;  // (object, bias): an object's segments are one module
  for (const ObjectMapping& mapping : mappings) {
    if (std::find(reported.begin(), reported.end(), std::make_pair(mapping.object_id, mapping.bias)) != reported.end() ||
        mapping.object_id < 0 || static_cast<size_t>(mapping.object_id) >= objects_.size()) {
      continue;
    }
    reported.emplace_back(mapping.object_id, mapping.bias);
    const auto& [path, build_id_hex] = objects_[static_cast<size_t>(mapping.object_id)];
    std::shared_ptr<const ObjectFile> file = files_.get(path, build_id_hex);
    if (!file) {
      continue;  // unwinding stops at its frames
    }
    Dwfl_Module* module = dwfl_report_module(process->dwfl.get(), path.c_str(), mapping.bias + file->load_start(),
                                             mapping.bias + file->load_end());
    if (module == nullptr) {
      continue;  // overlapping another object: a mapping the recorder has not seen go
    }
    void** userdata = nullptr;
    dwfl_module_info(module, &userdata, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr);
    *userdata = const_cast<ObjectFile*>(file.get());
    process->files.push_back(std::move(file));
  }
  dwfl_report_end(process->dwfl.get(), nullptr, nullptr);
  // The machine is found from the modules' ELF headers: none, nothing to unwind with.
  process->attached =
      !process->files.empty() && dwfl_attach_state(process->dwfl.get(), nullptr, pid, &kThreadCallbacks, &sample_);
  process_order_.push_front(pid);
  process->order = process_order_.begin();
  Process* made = process.get();
  processes_[pid] = std::move(process);
  if (processes_.size() > kProcessSessions) {
    processes_.erase(process_order_.back());
    process_order_.pop_back();
  }
  return made;
}

UnwoundStack StackUnwinder::unwind(pid_t pid, pid_t tid, std::span<const ObjectMapping> mappings,
                                   const DwarfRegisters& registers, std::span<const unsigned char> stack) {
  UnwoundStack out;
  Process* process = session(pid, mappings);
  if (process == nullptr || !process->attached) {
    return out;
  }
  sample_ = Sample{tid, &registers, stack, false, &out};
  // libdwfl ends a walk whose return address could not be read as it ends one whose CFI
  // says there is no caller (the register is left undefined): only the second is whole.
  out.complete = dwfl_getthread_frames(process->dwfl.get(), tid, take_frame, &sample_) == 0 && !sample_.read_past_copy;
  sample_ = Sample{};
  return out;
}

void StackUnwinder::forget(pid_t pid) {
  auto known = processes_.find(pid);
  if (known != processes_.end()) {
    process_order_.erase(known->second->order);
    processes_.erase(known);
  }
}

}  // namespace canopy::unwind
