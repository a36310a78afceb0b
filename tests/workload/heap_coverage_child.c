/* The heap coverage test's smallest program (tests/integration/heap_coverage_test.cpp),
 * built twice: dynamically linked, and static. It allocates nothing: it reads its
 * stdin to the end, then ends.
 *
 *   heap_coverage_child          ends with exit(): a preloaded profiler reports at exit
 *   heap_coverage_child _exit    ends with _exit(): a preloaded profiler that sampled
 *                                nothing never reports
 *   heap_coverage_child as-nobody PROGRAM ARGS...
 *                                (as root) becomes nobody and runs PROGRAM, as `su`
 *                                and `setpriv` do, but without allocating: a profiler
 *                                preloaded here never has a sample to report
 */
#define _GNU_SOURCE
#include <grp.h>
#include <string.h>
#include <unistd.h>

enum { kNobody = 65534 };

int main(int argc, char** argv) {
  if (argc > 2 && strcmp(argv[1], "as-nobody") == 0) {
    if (setgroups(0, NULL) != 0 || setresgid(kNobody, kNobody, kNobody) != 0 ||
        setresuid(kNobody, kNobody, kNobody) != 0) {
      _exit(126);
    }
    execv(argv[2], argv + 2);
    _exit(127);
  }
  char buffer[256];
  while (read(0, buffer, sizeof buffer) > 0) {
  }
  if (argc > 1 && strcmp(argv[1], "_exit") == 0) {
    _exit(0);
  }
  return 0;
}
