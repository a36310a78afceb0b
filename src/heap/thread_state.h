// Each thread's sampling state. Initial-exec TLS: the library is preloaded, so its
// thread-locals sit in the static TLS block, and reaching them never calls
// __tls_get_addr, which can allocate.
#pragma once

#include <cstdint>

namespace canopy::heap {

struct ThreadState {
  // Counts down by each allocation's size; the allocation that takes it to zero or
  // below is sampled. Zero in a new thread, whose first allocation draws it.
  int64_t bytes_until_sample;
  uint64_t random_state;  // xorshift64*; 0 until seeded
  uintptr_t stack_top;    // end of the mapping of this thread's stack; 0 until needed
  // Set while this thread runs the library's own code or the real allocator on its
  // behalf: allocations made meanwhile (by dlsym, libunwind, the real allocator, the
  // library's thread) pass straight through, uncounted.
  bool in_hook;
};

extern __thread ThreadState thread_state __attribute__((tls_model("initial-exec")));

// Sets in_hook for a scope, and puts back what it was on the way out.
class HookScope {
 public:
  HookScope() : was_in_hook_(thread_state.in_hook) { thread_state.in_hook = true; }
  ~HookScope() { thread_state.in_hook = was_in_hook_; }
  HookScope(const HookScope&) = delete;
  HookScope& operator=(const HookScope&) = delete;

 private:
  bool was_in_hook_;
};

}  // namespace canopy::heap
