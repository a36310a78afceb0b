// A program that loads a plugin with RTLD_DEEPBIND (heap_deepbind_plugin.c), for the
// heap profiler's test of it (integration/heap_deepbind_test.cpp).
//
//   heap_deepbind_workload PLUGIN N [lazy]
//       loads PLUGIN (a path, or a bare name its RUNPATH finds) with RTLD_DEEPBIND and
//       RTLD_NOW (or RTLD_LAZY: its calls are bound on their first call); hands the
//       plugin N blocks of 65600 bytes to free, and keeps N blocks of 65536 bytes the
//       plugin allocated
//
// Exit status 2: bad arguments, or the plugin did not load. 5: the plugin's malloc is
// not the one the program's calls reach: loaded by path, at once after the dlopen; by
// bare name, after a minute of waiting. Its free, bound lazily or not, the test judges
// by the blocks the profile has alive at the end.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { kHandedBytes = 65600, kKeptBytes = 65536 };

typedef void* (*AddressOf)(void);

static int plugin_calls_the_programs_malloc(void* plugin) {
  AddressOf plugin_malloc = (AddressOf)dlsym(plugin, "deepbind_plugin_malloc");
  return plugin_malloc() == dlsym(RTLD_DEFAULT, "malloc");
}

// A plugin found by bare name is bound back by the profiler's thread, which the load
// wakes: wait for it, a minute at most.
static int wait_for_the_programs_malloc(void* plugin) {
  struct timespec pause = {0, 10 * 1000 * 1000};
  for (int tries = 0; tries < 6000; ++tries) {
    if (plugin_calls_the_programs_malloc(plugin)) {
      return 1;
    }
    nanosleep(&pause, NULL);
  }
  return 0;
}

int main(int argc, char** argv) {
  if (argc < 3 || argc > 4 || (argc == 4 && strcmp(argv[3], "lazy") != 0)) {
    fprintf(stderr, "usage: heap_deepbind_workload PLUGIN N [lazy]\n");
    return 2;
  }
  const char* name = argv[1];
  long count = atol(argv[2]);
  int binding = argc == 4 ? RTLD_LAZY : RTLD_NOW;
  void* plugin = dlopen(name, binding | RTLD_DEEPBIND);
  if (!plugin) {
    fprintf(stderr, "dlopen %s: %s\n", name, dlerror());
    return 2;
  }
  int bound = strchr(name, '/') ? plugin_calls_the_programs_malloc(plugin) : wait_for_the_programs_malloc(plugin);
  if (!bound) {
    fprintf(stderr, "the plugin's malloc is not the program's\n");
    return 5;
  }
  void (*take)(void*) = (void (*)(void*))dlsym(plugin, "deepbind_plugin_take");
  void* (*make)(size_t) = (void* (*)(size_t))dlsym(plugin, "deepbind_plugin_make");
  void** kept = malloc(count * sizeof *kept);
  for (long i = 0; i < count; ++i) {
    char* handed = malloc(kHandedBytes);
    memset(handed, 1, kHandedBytes);
    take(handed);
    kept[i] = make(kKeptBytes);
  }
  printf("kept %ld blocks from the plugin\n", count);
  return 0;
}
