// The perf ring buffer's records (probe/perf_records.h) and their framing in the ring
// (read_ring_records), from bytes laid out as <linux/perf_event.h> describes them; and
// the executable mappings of /proc/PID/maps, for processes attached to while running.
#include <gtest/gtest.h>
#include <linux/perf_event.h>

#include <cstring>

#include "probe/perf_records.h"
#include "probe/perf_sampling.h"
#include "probe/running_tree.h"

namespace canopy::probe {
namespace {

// Builds one record: a header, then the fields appended, padded to 8 bytes.
class PerfRecordBytes {
 public:
  PerfRecordBytes(uint32_t type, uint16_t misc = 0) : type_(type), misc_(misc) {}
  template <typename T>
  PerfRecordBytes& add(T value) {
    const auto* bytes = reinterpret_cast<const unsigned char*>(&value);
    body_.insert(body_.end(), bytes, bytes + sizeof value);
    return *this;
  }
  PerfRecordBytes& add_bytes(const unsigned char* bytes, size_t count) {
    body_.insert(body_.end(), bytes, bytes + count);
    return *this;
  }
  PerfRecordBytes& add_text(const std::string& text) {
    body_.insert(body_.end(), text.begin(), text.end());
    body_.push_back(0);
    while (body_.size() % 8 != 0) {
      body_.push_back(0);
    }
    return *this;
  }
  // sample_id_all's trailer, as the events are opened: { u32 pid, tid; u64 time; }.
  PerfRecordBytes& add_sample_id(uint32_t pid, uint32_t tid, uint64_t time_ns) {
    return add(pid).add(tid).add(time_ns);
  }
  std::vector<unsigned char> bytes() const {
    perf_event_header header{type_, misc_, static_cast<uint16_t>(sizeof(perf_event_header) + body_.size())};
    std::vector<unsigned char> out(sizeof header);
    std::memcpy(out.data(), &header, sizeof header);
    out.insert(out.end(), body_.begin(), body_.end());
    return out;
  }

 private:
  uint32_t type_;
  uint16_t misc_;
  std::vector<unsigned char> body_;
};

std::vector<unsigned char> sample_bytes(uint32_t pid, uint64_t time_ns, std::vector<uint64_t> chain) {
  PerfRecordBytes record(PERF_RECORD_SAMPLE);
  record.add(pid).add(pid + 1).add(time_ns).add(static_cast<uint64_t>(chain.size()));
  for (uint64_t ip : chain) {
    record.add(ip);
  }
  return record.bytes();
}

TEST(PerfRecords, ASampleKeepsItsUserAddressesInnermostFirst) {
  auto bytes = sample_bytes(42, 123456789, {PERF_CONTEXT_KERNEL, 0xffffffff81000000, PERF_CONTEXT_USER, 0x401000,
                                            0x402000, 0x7f0000001000});
  auto parsed = parse_perf_record(bytes);
  ASSERT_TRUE(parsed.has_value());
  const auto* sample = std::get_if<PerfSample>(&*parsed);
  ASSERT_NE(sample, nullptr);
  EXPECT_EQ(sample->pid, 42);
  EXPECT_EQ(sample->tid, 43);
  EXPECT_EQ(sample->time_ns, 123456789u);
  EXPECT_EQ(sample->user_ips, (std::vector<uint64_t>{0x401000, 0x402000, 0x7f0000001000}));
  EXPECT_EQ(perf_record_time_ns(bytes), 123456789u);
}

TEST(PerfRecords, ASampleWhoseChainOverrunsItIsRefused) {
  auto bytes = sample_bytes(42, 1, {PERF_CONTEXT_USER, 0x401000});
  uint64_t claimed = 3;  // the nr field, after the header, pid, tid and time
  std::memcpy(bytes.data() + sizeof(perf_event_header) + 16, &claimed, sizeof claimed);
  EXPECT_FALSE(parse_perf_record(bytes).has_value());
}

// With REGS_USER | STACK_USER after the chain: { u64 abi; u64 regs[17]; } and
// { u64 size; char data[size]; u64 dyn_size; }, as the x86-64 events ask for them.
PerfRecordBytes sample_with_stack(uint64_t abi, uint64_t stack_size, uint64_t dyn_size) {
  PerfRecordBytes record(PERF_RECORD_SAMPLE);
  record.add(uint32_t{42}).add(uint32_t{43}).add(uint64_t{7}).add(uint64_t{2});
  record.add(static_cast<uint64_t>(PERF_CONTEXT_USER)).add(uint64_t{0x401000});
  record.add(abi);
  if (abi != PERF_SAMPLE_REGS_ABI_NONE) {
    for (uint64_t i = 0; i < static_cast<uint64_t>(PerfUserRegister::count); ++i) {
      record.add(0x1000 + i);  // ax = 0x1000, bx = 0x1001, ... in the sample's order
    }
  }
  record.add(stack_size);
  for (uint64_t i = 0; i < stack_size; ++i) {
    record.add(static_cast<unsigned char>(i));
  }
  if (stack_size != 0) {
    record.add(dyn_size);
  }
  return record;
}

TEST(PerfRecords, ASampleCarriesItsUserRegistersAndTheCopiedPartOfItsStack) {
  auto bytes = sample_with_stack(PERF_SAMPLE_REGS_ABI_64, 64, 40).bytes();
  auto parsed = parse_perf_record(bytes);
  ASSERT_TRUE(parsed.has_value());
  const PerfSample& sample = std::get<PerfSample>(*parsed);
  EXPECT_EQ(sample.user_ips, (std::vector<uint64_t>{0x401000}));
  ASSERT_EQ(sample.user_registers.size(), 17u);
  // The mask's bits in order: ax..ip are bits 0 to 8, r8..r15 bits 16 to 23.
  EXPECT_EQ(sample.user_register(PerfUserRegister::ax), 0x1000u);
  EXPECT_EQ(sample.user_register(PerfUserRegister::sp), 0x1007u);
  EXPECT_EQ(sample.user_register(PerfUserRegister::ip), 0x1008u);
  EXPECT_EQ(sample.user_register(PerfUserRegister::r8), 0x1009u);
  EXPECT_EQ(sample.user_register(PerfUserRegister::r15), 0x1010u);
  EXPECT_EQ(perf_user_registers_mask(), 0xff01ffu);
  // Only the dyn_size bytes the kernel could copy, of the size it reserved.
  ASSERT_EQ(sample.user_stack.size(), 40u);
  EXPECT_EQ(sample.user_stack[0], 0);
  EXPECT_EQ(sample.user_stack[39], 39);
  EXPECT_EQ(perf_record_time_ns(bytes), 7u);
}

TEST(PerfRecords, ASampleParsedIntoASpareBufferHoldsOnlyItsOwnCopy) {
  // A spare buffer from an earlier, larger sample: its capacity is taken, not its bytes.
  std::vector<unsigned char> spare(256, 0xee);
  const unsigned char* spare_bytes = spare.data();
  auto parsed = parse_perf_record(sample_with_stack(PERF_SAMPLE_REGS_ABI_64, 64, 40).bytes(), spare);
  ASSERT_TRUE(parsed.has_value());
  const std::vector<unsigned char>& stack = std::get<PerfSample>(*parsed).user_stack;
  ASSERT_EQ(stack.size(), 40u);
  EXPECT_EQ(stack.data(), spare_bytes);
  EXPECT_EQ(stack[0], 0);
  EXPECT_EQ(stack[39], 39);
  // A record that is no sample leaves the spare buffer to the next one.
  std::vector<unsigned char> kept(128, 1);
  auto comm = parse_perf_record(
      PerfRecordBytes(PERF_RECORD_COMM).add(uint32_t{9}).add(uint32_t{9}).add_text("cc1").add_sample_id(9, 9, 1).bytes(),
      kept);
  ASSERT_TRUE(comm && std::holds_alternative<PerfComm>(*comm));
  EXPECT_EQ(kept.size(), 128u);
  // And a sample refused as too short hands it back too.
  auto cut = sample_with_stack(PERF_SAMPLE_REGS_ABI_64, 64, 64).bytes();
  const size_t size_at = sizeof(perf_event_header) + 8 + 8 + 8 + 16 + 8 + 17 * 8;
  uint64_t claimed = 4096;
  std::memcpy(cut.data() + size_at, &claimed, sizeof claimed);
  EXPECT_FALSE(parse_perf_record(cut, kept).has_value());
  EXPECT_GE(kept.capacity(), 128u);
}

TEST(PerfRecords, ASampleWithoutAUserContextHasNoRegistersNorStack) {
  // A task sampled with no user registers (abi NONE: no regs follow), nothing copied.
  auto parsed = parse_perf_record(sample_with_stack(PERF_SAMPLE_REGS_ABI_NONE, 0, 0).bytes());
  ASSERT_TRUE(parsed.has_value());
  EXPECT_TRUE(std::get<PerfSample>(*parsed).user_registers.empty());
  EXPECT_TRUE(std::get<PerfSample>(*parsed).user_stack.empty());
  // A 32-bit task's registers are read past, and not given as x86-64's.
  auto compat = parse_perf_record(sample_with_stack(PERF_SAMPLE_REGS_ABI_32, 16, 16).bytes());
  ASSERT_TRUE(compat.has_value());
  EXPECT_TRUE(std::get<PerfSample>(*compat).user_registers.empty());
  EXPECT_EQ(std::get<PerfSample>(*compat).user_stack.size(), 16u);
}

TEST(PerfRecords, ASampleWhoseStackOverrunsItIsRefused) {
  auto bytes = sample_with_stack(PERF_SAMPLE_REGS_ABI_64, 64, 64).bytes();
  // The stack's size field, 16 bytes after the registers: claim more than is there.
  const size_t size_at = sizeof(perf_event_header) + 8 + 8 + 8 + 16 + 8 + 17 * 8;
  uint64_t claimed = 4096;
  std::memcpy(bytes.data() + size_at, &claimed, sizeof claimed);
  EXPECT_FALSE(parse_perf_record(bytes).has_value());
  // And one cut short inside its registers.
  auto cut = sample_with_stack(PERF_SAMPLE_REGS_ABI_64, 0, 0).bytes();
  cut.resize(cut.size() - 16);
  perf_event_header header;
  std::memcpy(&header, cut.data(), sizeof header);
  header.size = static_cast<uint16_t>(cut.size());
  std::memcpy(cut.data(), &header, sizeof header);
  EXPECT_FALSE(parse_perf_record(cut).has_value());
}

TEST(PerfRecords, AnMmap2RecordGivesTheMappingAndTheKernelsBuildId) {
  PerfRecordBytes record(PERF_RECORD_MMAP2, PERF_RECORD_MISC_MMAP_BUILD_ID);
  record.add(uint32_t{7}).add(uint32_t{7}).add(uint64_t{0x555555554000}).add(uint64_t{0x3000}).add(uint64_t{0x1000});
  unsigned char identity[24] = {20, 0, 0, 0};
  for (int i = 0; i < 20; ++i) {
    identity[4 + i] = static_cast<unsigned char>(0xa0 + i);
  }
  record.add_bytes(identity, sizeof identity).add(uint32_t{5}).add(uint32_t{2}).add_text("/usr/bin/true").add_sample_id(7, 7, 99);
  auto bytes = record.bytes();
  auto parsed = parse_perf_record(bytes);
  ASSERT_TRUE(parsed.has_value());
  const auto* mmap = std::get_if<PerfMmap>(&*parsed);
  ASSERT_NE(mmap, nullptr);
  EXPECT_EQ(mmap->pid, 7);
  EXPECT_EQ(mmap->start, 0x555555554000u);
  EXPECT_EQ(mmap->length, 0x3000u);
  EXPECT_EQ(mmap->file_offset, 0x1000u);
  EXPECT_EQ(mmap->build_id_hex, "a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3");
  EXPECT_EQ(mmap->path, "/usr/bin/true");
  EXPECT_EQ(perf_record_time_ns(bytes), 99u);
}

TEST(PerfRecords, AnMmap2RecordWithoutABuildIdHasNone) {
  PerfRecordBytes record(PERF_RECORD_MMAP2);
  unsigned char device_and_inode[24] = {8, 0, 0, 0, 1};
  record.add(uint32_t{7}).add(uint32_t{8}).add(uint64_t{0x1000}).add(uint64_t{0x1000}).add(uint64_t{0});
  record.add_bytes(device_and_inode, sizeof device_and_inode).add(uint32_t{5}).add(uint32_t{2}).add_text("//anon").add_sample_id(7, 8, 5);
  auto parsed = parse_perf_record(record.bytes());
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(std::get<PerfMmap>(*parsed).build_id_hex, "");
  EXPECT_EQ(std::get<PerfMmap>(*parsed).path, "//anon");
}

TEST(PerfRecords, CommForkExitAndLostAreEachTheirOwn) {
  auto comm = parse_perf_record(PerfRecordBytes(PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC)
                                    .add(uint32_t{9})
                                    .add(uint32_t{9})
                                    .add_text("make")
                                    .add_sample_id(9, 9, 1)
                                    .bytes());
  ASSERT_TRUE(comm && std::holds_alternative<PerfComm>(*comm));
  EXPECT_TRUE(std::get<PerfComm>(*comm).exec);
  EXPECT_EQ(std::get<PerfComm>(*comm).pid, 9);

  auto fork = parse_perf_record(PerfRecordBytes(PERF_RECORD_FORK)
                                    .add(uint32_t{10})
                                    .add(uint32_t{9})
                                    .add(uint32_t{10})
                                    .add(uint32_t{9})
                                    .add(uint64_t{2})
                                    .add_sample_id(10, 10, 2)
                                    .bytes());
  ASSERT_TRUE(fork && std::holds_alternative<PerfFork>(*fork));
  EXPECT_EQ(std::get<PerfFork>(*fork).pid, 10);
  EXPECT_EQ(std::get<PerfFork>(*fork).parent_pid, 9);

  auto exit = parse_perf_record(PerfRecordBytes(PERF_RECORD_EXIT)
                                    .add(uint32_t{10})
                                    .add(uint32_t{9})
                                    .add(uint32_t{11})
                                    .add(uint32_t{9})
                                    .add(uint64_t{3})
                                    .add_sample_id(10, 11, 3)
                                    .bytes());
  ASSERT_TRUE(exit && std::holds_alternative<PerfExit>(*exit));
  EXPECT_EQ(std::get<PerfExit>(*exit).tid, 11);

  auto lost = parse_perf_record(
      PerfRecordBytes(PERF_RECORD_LOST).add(uint64_t{1}).add(uint64_t{17}).add_sample_id(0, 0, 4).bytes());
  ASSERT_TRUE(lost && std::holds_alternative<PerfLost>(*lost));
  EXPECT_EQ(std::get<PerfLost>(*lost).lost, 17u);
}

TEST(PerfRecords, UnknownTypesAndWrongSizesAreSkippedNotMisread) {
  EXPECT_FALSE(parse_perf_record(PerfRecordBytes(PERF_RECORD_THROTTLE).add(uint64_t{1}).bytes()).has_value());
  auto bytes = sample_bytes(1, 1, {PERF_CONTEXT_USER, 0x1000});
  bytes.push_back(0);  // one byte more than its header says
  EXPECT_FALSE(parse_perf_record(bytes).has_value());
  EXPECT_FALSE(parse_perf_record(std::span<const unsigned char>()).has_value());
}

// A ring of 128 bytes holding three records, the second wrapping around its end.
TEST(PerfRing, RecordsAreFramedAcrossTheRingsEnd) {
  std::vector<unsigned char> ring(128);
  auto first = PerfRecordBytes(PERF_RECORD_LOST).add(uint64_t{1}).add(uint64_t{2}).bytes();     // 24 bytes
  auto second = PerfRecordBytes(PERF_RECORD_LOST).add(uint64_t{3}).add(uint64_t{4}).bytes();    // 24
  auto third = PerfRecordBytes(PERF_RECORD_LOST).add(uint64_t{5}).add(uint64_t{6}).bytes();     // 24
  uint64_t tail = 100;  // a reader that has read 100 bytes before: the second wraps at 128
  uint64_t head = tail;
  for (const auto* record : {&first, &second, &third}) {
    for (unsigned char byte : *record) {
      ring[head++ % ring.size()] = byte;
    }
  }
  std::vector<uint64_t> lost;
  read_ring_records(ring, head, tail, [&](std::span<const unsigned char> bytes) {
    auto parsed = parse_perf_record(bytes);
    ASSERT_TRUE(parsed && std::holds_alternative<PerfLost>(*parsed));
    lost.push_back(std::get<PerfLost>(*parsed).lost);
  });
  EXPECT_EQ(lost, (std::vector<uint64_t>{2, 4, 6}));
  EXPECT_EQ(tail, head);
}

// The kernel moves the head past whole records only: a record that reaches past it, or
// one of size 0, is damage, and nothing after it can be framed.
TEST(PerfRing, ARecordPastTheHeadOrOfSizeZeroEndsTheRead) {
  std::vector<unsigned char> ring(64);
  auto record = PerfRecordBytes(PERF_RECORD_LOST).add(uint64_t{1}).add(uint64_t{2}).bytes();
  std::memcpy(ring.data(), record.data(), record.size());
  uint64_t tail = 0;
  int seen = 0;
  read_ring_records(ring, 16, tail, [&](std::span<const unsigned char>) { ++seen; });  // head inside it
  EXPECT_EQ(seen, 0);
  EXPECT_EQ(tail, 16u);
  tail = 0;
  std::memset(ring.data() + 6, 0, 2);  // size 0
  read_ring_records(ring, 24, tail, [&](std::span<const unsigned char>) { ++seen; });
  EXPECT_EQ(seen, 0);
  EXPECT_EQ(tail, 24u);
}

}  // namespace
}  // namespace canopy::probe

namespace canopy::probe {
namespace {

TEST(ProcMaps, OnlyExecutableMappingsWithTheirPathsSpacesIncluded) {
  const char* text =
      "55d4c2a00000-55d4c2a02000 r--p 00000000 08:01 1234                       /usr/bin/cat\n"
      "55d4c2a02000-55d4c2a07000 r-xp 00002000 08:01 1234                       /usr/bin/cat\n"
      "7f0000000000-7f0000001000 r-xp 00000000 00:00 0 \n"
      "7f0000002000-7f0000003000 r-xp 00001000 08:01 99                         /tmp/a dir/lib x.so (deleted)\n"
      "7ffd1c3f0000-7ffd1c3f2000 r-xp 00000000 00:00 0                          [vdso]\n"
      "garbage\n"
      "7f0000004000-7f0000003000 r-xp 00000000 00:00 0                          /backwards\n";
  auto mappings = parse_executable_mappings(text);
  ASSERT_EQ(mappings.size(), 4u);
  EXPECT_EQ(mappings[0].start, 0x55d4c2a02000u);
  EXPECT_EQ(mappings[0].end, 0x55d4c2a07000u);
  EXPECT_EQ(mappings[0].file_offset, 0x2000u);
  EXPECT_EQ(mappings[0].path, "/usr/bin/cat");
  EXPECT_EQ(mappings[1].path, "");
  EXPECT_EQ(mappings[2].path, "/tmp/a dir/lib x.so (deleted)");
  EXPECT_EQ(mappings[3].path, "[vdso]");
}

}  // namespace
}  // namespace canopy::probe
