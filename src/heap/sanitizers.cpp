#include "heap/sanitizers.h"

#include <dlfcn.h>

#include <atomic>

namespace canopy::heap {
namespace {

enum Answer : int { kNotAsked = 0, kYes = 1, kNo = 2 };
std::atomic<int> sanitizer_allocates{kNotAsked};
__thread bool asking __attribute__((tls_model("initial-exec")));

}  // namespace

bool a_sanitizer_allocates() {
  int answer = sanitizer_allocates.load(std::memory_order_relaxed);
  if (answer == kNotAsked) [[unlikely]] {
    if (asking) {
      return false;  // called back from within dlsym: the allocation is the loader's
    }
    // Two threads that ask at once find the same answer.
    asking = true;
    answer = ::dlsym(RTLD_DEFAULT, "__sanitizer_get_allocated_size") ? kYes : kNo;
    asking = false;
    sanitizer_allocates.store(answer, std::memory_order_relaxed);
  }
  return answer == kYes;
}

}  // namespace canopy::heap

// ASan's runtime as a library (gcc's -fsanitize=address) insists on being the first
// object after the program, and ends the program when a preloaded one is: every such
// program would fail under `record --heap`. Its defaults come from this function, which
// a program may define, and which the preloaded profiler defines in front of the
// runtime's own; ASAN_OPTIONS still overrides it. The program's own definition comes
// first, and then this one is not asked.
extern "C" __attribute__((visibility("default"))) const char* __asan_default_options() {
  return "verify_asan_link_order=0";
}
