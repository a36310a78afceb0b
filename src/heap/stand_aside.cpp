#include "heap/stand_aside.h"

#include <dlfcn.h>
#include <link.h>

#include <cstddef>

// The profiler's own malloc, at an address no interposition changes (hooks.cpp).
extern "C" void* canopy_profiler_malloc(size_t size);

namespace canopy::heap {
namespace {

__thread bool asking __attribute__((tls_model("initial-exec")));

// Each sanitizer's runtime exports this interface, whether it is linked into the
// program (clang's default) or a library (gcc's).
bool a_sanitizer_allocates() { return ::dlsym(RTLD_DEFAULT, "__sanitizer_get_allocated_size") != nullptr; }

}  // namespace

// A program built without PIC that takes a function's address gets an undefined
// symbol of its name whose value is its PLT stub, which the loader then finds first;
// the stub leads to the definition after it, so only a defined symbol counts.
bool another_definition_comes_first(const char* name, const void* own) {
  void* found = ::dlsym(RTLD_DEFAULT, name);
  if (!found || found == own) {
    return false;
  }
  Dl_info info;
  ElfW(Sym)* symbol = nullptr;
  if (!::dladdr1(found, &info, reinterpret_cast<void**>(&symbol), RTLD_DL_SYMENT) || !symbol) {
    return false;
  }
  return symbol->st_shndx != SHN_UNDEF && info.dli_saddr == found;
}

std::atomic<int> aside_answer{kAsideNotAsked};

AsideAnswer ask_whether_to_stand_aside() {
  if (asking) {
    return kAsideNo;  // called back from within dlsym: the allocation is the loader's
  }
  // Two threads that ask at once find the same answer. A sanitizer's runtime linked
  // into the program defines malloc as well: it is named as what it is.
  asking = true;
  const void* own_malloc = reinterpret_cast<void*>(&canopy_profiler_malloc);
  AsideAnswer answer = a_sanitizer_allocates()                                ? kAsideForSanitizer
                       : another_definition_comes_first("malloc", own_malloc) ? kAsideForOwnMalloc
                                                                              : kAsideNo;
  asking = false;
  aside_answer.store(answer, std::memory_order_relaxed);
  return answer;
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
