#include "heap/sanitizers.h"

#include <dlfcn.h>

namespace canopy::heap {
namespace {

__thread bool asking __attribute__((tls_model("initial-exec")));

}  // namespace

std::atomic<int> sanitizer_answer{kSanitizerNotAsked};

bool ask_whether_a_sanitizer_allocates() {
  if (asking) {
    return false;  // called back from within dlsym: the allocation is the loader's
  }
  // Two threads that ask at once find the same answer.
  asking = true;
  int answer = ::dlsym(RTLD_DEFAULT, "__sanitizer_get_allocated_size") ? kSanitizerYes : kSanitizerNo;
  asking = false;
  sanitizer_answer.store(answer, std::memory_order_relaxed);
  return answer == kSanitizerYes;
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
