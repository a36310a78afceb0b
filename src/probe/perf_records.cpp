#include "probe/perf_records.h"

#include <linux/perf_event.h>

#include <algorithm>
#include <cstring>

#include "common/text.h"

namespace canopy::probe {
namespace {

// Reads fixed-size fields in order, and says when the record ran out.
class FieldReader {
 public:
  explicit FieldReader(std::span<const unsigned char> bytes) : bytes_(bytes) {}

  template <typename T>
  bool read(T& out) {
    if (bytes_.size() - offset_ < sizeof(T)) {
      return false;
    }
    std::memcpy(&out, bytes_.data() + offset_, sizeof(T));
    offset_ += sizeof(T);
    return true;
  }
  bool skip(size_t count) {
    if (bytes_.size() - offset_ < count) {
      return false;
    }
    offset_ += count;
    return true;
  }
  std::span<const unsigned char> rest() const { return bytes_.subspan(offset_); }

 private:
  std::span<const unsigned char> bytes_;
  size_t offset_ = 0;
};

// A NUL-terminated name padded to 8 bytes, followed by sample_id_all's fields.
std::string c_string(std::span<const unsigned char> bytes) {
  const auto* text = reinterpret_cast<const char*>(bytes.data());
  return std::string(text, strnlen(text, bytes.size()));
}

// { u64 abi; u64 regs[weight(mask)]; } (regs only when abi is not PERF_SAMPLE_REGS_ABI_NONE)
// then { u64 size; char data[size]; u64 dyn_size; } (dyn_size only when size is not 0).
// False when the record is too short for what it says it holds.
bool user_registers_and_stack(FieldReader& in, PerfSample& out) {
  uint64_t abi = 0;
  if (!in.read(abi)) {
    return false;
  }
  if (abi != PERF_SAMPLE_REGS_ABI_NONE) {
    out.user_registers.resize(static_cast<size_t>(PerfUserRegister::count));
    for (uint64_t& value : out.user_registers) {
      if (!in.read(value)) {
        return false;
      }
    }
    // A 32-bit task's registers are not the x86-64 DWARF set the unwinder expects.
    if (abi != PERF_SAMPLE_REGS_ABI_64) {
      out.user_registers.clear();
    }
  }
  uint64_t size = 0;
  if (!in.read(size)) {
    return false;
  }
  if (size == 0) {
    return true;
  }
  if (size > in.rest().size()) {
    return false;
  }
  std::span<const unsigned char> data = in.rest().subspan(0, static_cast<size_t>(size));
  uint64_t dyn_size = 0;
  if (!in.skip(static_cast<size_t>(size)) || !in.read(dyn_size)) {
    return false;
  }
  out.user_stack.assign(data.begin(), data.begin() + static_cast<ptrdiff_t>(std::min(dyn_size, size)));
  return true;
}

// { u32 pid, tid; u64 time; u64 nr; u64 ips[nr]; } and, when the events ask for them, the
// user registers and stack. The callchain opens with a context marker
// (PERF_CONTEXT_KERNEL, PERF_CONTEXT_USER); addresses follow their context.
std::optional<PerfRecord> sample(FieldReader& in, std::vector<unsigned char>& spare_stack) {
  PerfSample out;
  uint64_t count = 0;
  if (!in.read(out.pid) || !in.read(out.tid) || !in.read(out.time_ns) || !in.read(count) ||
      count > in.rest().size() / sizeof(uint64_t)) {
    return std::nullopt;
  }
  bool in_user = false;
  for (uint64_t i = 0; i < count; ++i) {
    uint64_t ip = 0;
    in.read(ip);
    if (ip >= static_cast<uint64_t>(PERF_CONTEXT_MAX)) {
      in_user = ip == static_cast<uint64_t>(PERF_CONTEXT_USER);
      continue;
    }
    if (in_user) {
      out.user_ips.push_back(ip);
    }
  }
  out.user_stack.swap(spare_stack);
  out.user_stack.clear();
  // A sample without them ends here: the events of a kernel that cannot copy stacks.
  if (!in.rest().empty() && !user_registers_and_stack(in, out)) {
    out.user_stack.swap(spare_stack);
    return std::nullopt;
  }
  return out;
}

// { u32 pid, tid; u64 addr, len, pgoff; union { u32 maj, min; u64 ino, ino_generation; }
//   or { u8 build_id_size, reserved[3]; u8 build_id[20]; }; u32 prot, flags; char filename[]; }
std::optional<PerfRecord> mmap2(FieldReader& in, uint16_t misc) {
  PerfMmap out;
  unsigned char identity[24];
  uint32_t prot = 0;
  uint32_t flags = 0;
  if (!in.read(out.pid) || !in.read(out.tid) || !in.read(out.start) || !in.read(out.length) ||
      !in.read(out.file_offset) || !in.read(identity) || !in.read(prot) || !in.read(flags)) {
    return std::nullopt;
  }
  if (misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
    size_t size = identity[0] <= 20 ? identity[0] : 20;
    out.build_id_hex = hex_of(identity + 4, size);
  }
  out.path = c_string(in.rest());
  return out;
}

}  // namespace

std::optional<PerfRecord> parse_perf_record(std::span<const unsigned char> record) {
  std::vector<unsigned char> spare_stack;
  return parse_perf_record(record, spare_stack);
}

std::optional<PerfRecord> parse_perf_record(std::span<const unsigned char> record,
                                            std::vector<unsigned char>& spare_stack) {
  perf_event_header header;
  FieldReader in(record);
  if (!in.read(header) || header.size != record.size()) {
    return std::nullopt;
  }
  switch (header.type) {
    case PERF_RECORD_SAMPLE:
      return sample(in, spare_stack);
    case PERF_RECORD_MMAP2:
      return mmap2(in, header.misc);
    case PERF_RECORD_COMM: {
      PerfComm out;
      if (!in.read(out.pid) || !in.read(out.tid)) {
        return std::nullopt;
      }
      out.exec = (header.misc & PERF_RECORD_MISC_COMM_EXEC) != 0;
      return out;
    }
    case PERF_RECORD_FORK: {  // { u32 pid, ppid; u32 tid, ptid; u64 time; }
      PerfFork out;
      if (!in.read(out.pid) || !in.read(out.parent_pid)) {
        return std::nullopt;
      }
      return out;
    }
    case PERF_RECORD_EXIT: {
      PerfExit out;
      uint32_t parent_pid = 0;
      if (!in.read(out.pid) || !in.read(parent_pid) || !in.read(out.tid)) {
        return std::nullopt;
      }
      return out;
    }
    case PERF_RECORD_LOST: {  // { u64 id, lost; }
      PerfLost out;
      uint64_t id = 0;
      if (!in.read(id) || !in.read(out.lost)) {
        return std::nullopt;
      }
      return out;
    }
    default:
      return std::nullopt;
  }
}

uint64_t perf_record_time_ns(std::span<const unsigned char> record) {
  perf_event_header header;
  uint64_t time_ns = 0;
  constexpr size_t kSampleTimeAt = sizeof header + 2 * sizeof(uint32_t);
  if (record.size() < sizeof header + sizeof time_ns) {
    return 0;
  }
  std::memcpy(&header, record.data(), sizeof header);
  size_t at = header.type == PERF_RECORD_SAMPLE ? kSampleTimeAt : record.size() - sizeof time_ns;
  if (at + sizeof time_ns > record.size()) {
    return 0;
  }
  std::memcpy(&time_ns, record.data() + at, sizeof time_ns);
  return time_ns;
}

}  // namespace canopy::probe
