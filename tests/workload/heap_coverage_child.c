/* The heap coverage test's smallest program (tests/integration/heap_coverage_test.cpp),
 * built twice: dynamically linked, and static. It allocates nothing: it reads its
 * stdin to the end, then ends.
 *
 *   heap_coverage_child          ends with exit(): a preloaded profiler reports at exit
 *   heap_coverage_child _exit    ends with _exit(): a preloaded profiler that sampled
 *                                nothing never reports
 */
#include <string.h>
#include <unistd.h>

int main(int argc, char** argv) {
  char buffer[256];
  while (read(0, buffer, sizeof buffer) > 0) {
  }
  if (argc > 1 && strcmp(argv[1], "_exit") == 0) {
    _exit(0);
  }
  return 0;
}
