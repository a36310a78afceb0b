// /proc/PID/smaps grouped by kind of mapping (probe/memory_map.h): text as the kernel
// writes it, and this test process's own smaps, where a block it allocates and touches
// must show in its anonymous or heap memory.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <memory>

#include "probe/memory_map.h"

namespace canopy::probe {
namespace {

constexpr const char* kSmapsText =
    "55d4c2a00000-55d4c2a02000 r--p 00000000 08:01 1234                       /usr/bin/my prog\n"
    "Size:                  8 kB\n"
    "Rss:                   8 kB\n"
    "Pss:                   4 kB\n"
    "Anonymous:             0 kB\n"
    "Swap:                  0 kB\n"
    "VmFlags: rd mr mw me dw sd\n"
    "55d4c3000000-55d4c3021000 rw-p 00000000 00:00 0                          [heap]\n"
    "Size:                132 kB\n"
    "Rss:                 100 kB\n"
    "Pss:                 100 kB\n"
    "Anonymous:           100 kB\n"
    "Swap:                 12 kB\n"
    "7f1c2a000000-7f1c2a100000 rw-p 00000000 00:00 0 \n"
    "Size:               1024 kB\n"
    "Rss:                 512 kB\n"
    "Pss:                 512 kB\n"
    "Anonymous:           512 kB\n"
    "Swap:                  0 kB\n"
    "7f1c2b000000-7f1c2b001000 rw-p 00000000 00:00 0                          [anon:arena]\n"
    "Size:                  4 kB\n"
    "Rss:                   4 kB\n"
    "7f1c2c000000-7f1c2c010000 rw-s 00000000 00:1a 77                         /dev/shm/queue (deleted)\n"
    "Size:                 64 kB\n"
    "Rss:                  64 kB\n"
    "Pss:                  32 kB\n"
    "7ffd1000000-7ffd1021000 rw-p 00000000 00:00 0                            [stack]\n"
    "Size:                132 kB\n"
    "Rss:                  16 kB\n"
    "Anonymous:            16 kB\n"
    "7ffd2000000-7ffd2002000 r-xp 00000000 00:00 0                            [vdso]\n"
    "Size:                  8 kB\n"
    "Rss:                   4 kB\n";

const MappingGroup* group_of(const std::vector<MappingGroup>& groups, MappingKind kind) {
  for (const MappingGroup& group : groups) {
    if (group.kind == kind) {
      return &group;
    }
  }
  return nullptr;
}

TEST(MemoryMapTest, GroupsTheKernelsTextByKind) {
  auto groups = parse_memory_map(kSmapsText);
  ASSERT_EQ(groups.size(), 6u) << "heap, stack, file, shared memory, anonymous, kernel";
  const MappingGroup* file = group_of(groups, MappingKind::kFile);
  ASSERT_NE(file, nullptr);
  EXPECT_EQ(file->mappings, 1);
  EXPECT_EQ(file->rss_bytes, 8 * 1024);
  EXPECT_EQ(file->pss_bytes, 4 * 1024);
  const MappingGroup* heap = group_of(groups, MappingKind::kHeap);
  ASSERT_NE(heap, nullptr);
  EXPECT_EQ(heap->size_bytes, 132 * 1024);
  EXPECT_EQ(heap->rss_bytes, 100 * 1024);
  EXPECT_EQ(heap->anonymous_bytes, 100 * 1024);
  EXPECT_EQ(heap->swap_bytes, 12 * 1024);
  const MappingGroup* anonymous = group_of(groups, MappingKind::kAnonymous);
  ASSERT_NE(anonymous, nullptr);
  EXPECT_EQ(anonymous->mappings, 2) << "unnamed and [anon:arena]";
  EXPECT_EQ(anonymous->rss_bytes, (512 + 4) * 1024);
  const MappingGroup* shared = group_of(groups, MappingKind::kSharedMemory);
  ASSERT_NE(shared, nullptr);
  EXPECT_EQ(shared->pss_bytes, 32 * 1024);
  EXPECT_EQ(group_of(groups, MappingKind::kStack)->rss_bytes, 16 * 1024);
  EXPECT_EQ(group_of(groups, MappingKind::kKernel)->mappings, 1);
  EXPECT_EQ(group_of(groups, MappingKind::kOther), nullptr);
  EXPECT_EQ(groups.front().kind, MappingKind::kHeap) << "in kind order";
}

TEST(MemoryMapTest, IgnoresLinesItCannotRead) {
  auto groups = parse_memory_map("Rss: 4 kB\n"  // before any mapping
                                 "00400000-00401000 r-xp 00000000 08:01 1 /bin/x\n"
                                 "Rss: lots\n"
                                 "Rss: 4 MB\n"
                                 "\n"
                                 "Rss: 8 kB");
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(groups[0].rss_bytes, 8 * 1024);
}

TEST(MemoryMapTest, ReadsThisProcessesOwnTouchedMemory) {
  // 64 MiB touched: resident, private, and in the heap (brk) or an anonymous mmap
  // according to the allocator; either way counted once.
  constexpr size_t kBytes = 64 << 20;
  std::unique_ptr<char[]> block(new char[kBytes]);
  std::memset(block.get(), 1, kBytes);
  auto groups = read_memory_map(::getpid());
  ASSERT_TRUE(groups);
  int64_t private_bytes = 0;
  for (const MappingGroup& group : *groups) {
    if (group.kind == MappingKind::kHeap || group.kind == MappingKind::kAnonymous) {
      private_bytes += group.anonymous_bytes;
    }
  }
  EXPECT_GE(private_bytes, static_cast<int64_t>(kBytes));
  EXPECT_NE(group_of(*groups, MappingKind::kFile), nullptr) << "the test binary itself";
  EXPECT_NE(group_of(*groups, MappingKind::kStack), nullptr);
  EXPECT_FALSE(read_memory_map(0x7ffffff0)) << "no such process";
  EXPECT_GE(block[kBytes - 1], 1);
}

}  // namespace
}  // namespace canopy::probe
