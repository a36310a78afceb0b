// The heap profiler's program built with AddressSanitizer (integration/
// heap_sanitized_test.cpp), by gcc: ASan's runtime is then a library, which insists on
// coming before every other, and is the program's allocator.
//
//   heap_sanitized_workload leak N SIZE   keeps N blocks of SIZE bytes from new[] and
//                                         drops them (LeakSanitizer reports them at
//                                         exit), after a forked child has allocated
//                                         as much and ended by _exit
//   heap_sanitized_workload mismatch      frees a block from new[] with delete, which
//                                         ASan reports
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

// Each block from one place, so that LeakSanitizer reports them as one leak.
__attribute__((noinline)) void allocate(long count, long size, char** into) {
  for (long i = 0; i < count; ++i) {
    into[i] = new char[size];
    std::memset(into[i], 1, size);  // resident, as a real program's would be
  }
}

// N blocks, then forgotten without being freed: only LeakSanitizer's scan finds them.
void leak(long count, long size) {
  auto** blocks = static_cast<char**>(std::calloc(count, sizeof(char*)));
  allocate(count, size, blocks);
  std::memset(blocks, 0, count * sizeof(char*));
  std::free(blocks);
}

}  // namespace

int main(int argc, char** argv) {
  std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "leak" && argc == 4) {
    long count = std::atol(argv[2]);
    long size = std::atol(argv[3]);
    pid_t child = fork();
    if (child == 0) {
      leak(count, size);
      _exit(0);  // no leak check: LeakSanitizer runs at exit()
    }
    int status = 0;
    if (child < 0 || waitpid(child, &status, 0) != child || status != 0) {
      std::fprintf(stderr, "the forked child failed\n");
      return 2;
    }
    leak(count, size);
    return 0;
  }
  if (mode == "mismatch") {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"  // the error ASan is to report
    int* numbers = new int[4];
    delete numbers;
#pragma GCC diagnostic pop
    return 0;
  }
  std::fprintf(stderr, "usage: heap_sanitized_workload leak N SIZE | mismatch\n");
  return 2;
}
