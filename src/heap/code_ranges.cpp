#include "heap/code_ranges.h"

#include <link.h>
#include <pthread.h>

#include <algorithm>
#include <atomic>

namespace canopy::heap {
namespace {

struct CodeRange {
  uintptr_t begin;
  uintptr_t end;
};

constexpr int kMaxRanges = 2048;

// Two tables, and a sequence count (a seqlock): odd while the writer fills the table
// readers are not using, so that a reader retries only when it raced a refresh.
struct RangeTable {
  CodeRange ranges[kMaxRanges];
  int count;
};
RangeTable tables[2];
std::atomic<uint32_t> sequence{0};
std::atomic<int> current{0};
pthread_mutex_t writer_lock = PTHREAD_MUTEX_INITIALIZER;
unsigned long long seen_adds = ~0ULL;
unsigned long long seen_subs = ~0ULL;
CodeRange own_code{0, 0};

struct Collecting {
  RangeTable* table;
  unsigned long long adds;
  unsigned long long subs;
};

int collect_object(dl_phdr_info* info, size_t, void* data) {
  auto* collecting = static_cast<Collecting*>(data);
  collecting->adds = info->dlpi_adds;
  collecting->subs = info->dlpi_subs;
  RangeTable& table = *collecting->table;
  for (int i = 0; i < info->dlpi_phnum && table.count < kMaxRanges; ++i) {
    const ElfW(Phdr)& segment = info->dlpi_phdr[i];
    if (segment.p_type == PT_LOAD && (segment.p_flags & PF_X)) {
      uintptr_t begin = info->dlpi_addr + segment.p_vaddr;
      table.ranges[table.count++] = {begin, begin + segment.p_memsz};
    }
  }
  return 0;
}

int find_own_code(dl_phdr_info* info, size_t, void*) {
  auto self = reinterpret_cast<uintptr_t>(&find_own_code);
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& segment = info->dlpi_phdr[i];
    uintptr_t begin = info->dlpi_addr + segment.p_vaddr;
    if (segment.p_type == PT_LOAD && (segment.p_flags & PF_X) && self >= begin &&
        self < begin + segment.p_memsz) {
      own_code = {begin, begin + segment.p_memsz};
      return 1;
    }
  }
  return 0;
}

const CodeRange* find(const RangeTable& table, uintptr_t pc) {
  const CodeRange* end = table.ranges + table.count;
  const CodeRange* after = std::upper_bound(table.ranges, end, pc,
                                            [](uintptr_t value, const CodeRange& r) { return value < r.begin; });
  if (after == table.ranges) {
    return nullptr;
  }
  const CodeRange* range = after - 1;
  return pc < range->end ? range : nullptr;
}

}  // namespace

void refresh_code_ranges() {
  pthread_mutex_lock(&writer_lock);
  if (own_code.end == 0) {
    dl_iterate_phdr(find_own_code, nullptr);
  }
  int next = 1 - current.load(std::memory_order_relaxed);
  RangeTable& table = tables[next];
  table.count = 0;
  Collecting collecting{&table, 0, 0};
  dl_iterate_phdr(collect_object, &collecting);
  if (collecting.adds != seen_adds || collecting.subs != seen_subs) {
    std::sort(table.ranges, table.ranges + table.count,
              [](const CodeRange& a, const CodeRange& b) { return a.begin < b.begin; });
    sequence.fetch_add(1, std::memory_order_acq_rel);
    current.store(next, std::memory_order_release);
    sequence.fetch_add(1, std::memory_order_acq_rel);
    seen_adds = collecting.adds;
    seen_subs = collecting.subs;
  }
  pthread_mutex_unlock(&writer_lock);
}

bool in_code(uintptr_t pc) {
  for (;;) {
    uint32_t before = sequence.load(std::memory_order_acquire);
    bool found = find(tables[current.load(std::memory_order_acquire)], pc) != nullptr;
    std::atomic_thread_fence(std::memory_order_acquire);
    if ((before & 1) == 0 && sequence.load(std::memory_order_relaxed) == before) {
      return found;
    }
  }
}

bool in_own_code(uintptr_t pc) { return pc >= own_code.begin && pc < own_code.end; }

}  // namespace canopy::heap
