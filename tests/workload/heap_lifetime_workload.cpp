// Allocations outside main, for the heap profiler (tests/integration/heap_coverage_test.cpp):
// a global constructor allocates before main, a static object's destructor after it
// returns (during exit, before the profiler's own exit snapshot). Each site's blocks
// are all of one size and stay allocated, so that both are in use at the end.
#include <cstdlib>
#include <cstring>

namespace {

struct Site {
  size_t block_bytes;
  int blocks;
};
// Also in tests/integration/heap_coverage_test.cpp.
constexpr Site kBeforeMain{4000, 1300};
constexpr Site kAfterExit{6000, 1060};

void* before_main_blocks[kBeforeMain.blocks];
void* after_exit_blocks[kAfterExit.blocks];

__attribute__((noinline)) void allocate_before_main() {
  for (void*& block : before_main_blocks) {
    block = std::malloc(kBeforeMain.block_bytes);
    std::memset(block, 1, kBeforeMain.block_bytes);
  }
}

__attribute__((noinline)) void allocate_after_exit() {
  for (void*& block : after_exit_blocks) {
    block = std::malloc(kAfterExit.block_bytes);
    std::memset(block, 2, kAfterExit.block_bytes);
  }
}

struct BeforeMain {
  BeforeMain() { allocate_before_main(); }
} before_main;

// Constructed before main, so destroyed by exit() after main has returned.
struct AfterExit {
  ~AfterExit() { allocate_after_exit(); }
} after_exit;

}  // namespace

int main() { return 0; }
