// A program that loads a plugin with RTLD_DEEPBIND (heap_deepbind_plugin.c), for the
// heap profiler's test of it (integration/heap_deepbind_test.cpp).
//
//   heap_deepbind_workload PLUGIN N [lazy]
//       loads PLUGIN (a path, or a bare name its RUNPATH finds) with RTLD_DEEPBIND and
//       RTLD_NOW (or RTLD_LAZY: its calls are bound on their first call); hands the
//       plugin N blocks of 65600 bytes to free, and keeps N blocks of 65536 bytes the
//       plugin allocated
//   heap_deepbind_workload threads N PLUGIN...
//       the same for each PLUGIN at once, one thread each, loaded with RTLD_NOW, while
//       four more threads allocate and free; each waits for its plugin to be bound back
//       (another thread's sweep may leave it to the profiler's thread)
//
// Exit status 2: bad arguments, or a plugin did not load. 5: a plugin's malloc is not
// the one the program's calls reach: loaded alone by path, at once after the dlopen;
// else after a minute of waiting. Its free, bound lazily or not, the test judges by
// the blocks the profile has alive at the end.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
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
// wakes (so is one whose sweep found another thread sweeping): wait for it, a minute
// at most.
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

// Hands the plugin `count` blocks to free and keeps as many it made: 0, or the exit
// status.
static int use_plugin(const char* name, int binding, long count, int wait) {
  void* plugin = dlopen(name, binding | RTLD_DEEPBIND);
  if (!plugin) {
    fprintf(stderr, "dlopen %s: %s\n", name, dlerror());
    return 2;
  }
  int bound = wait ? wait_for_the_programs_malloc(plugin) : plugin_calls_the_programs_malloc(plugin);
  if (!bound) {
    fprintf(stderr, "the malloc of %s is not the program's\n", name);
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
  return 0;
}

struct Load {
  const char* name;
  long count;
  int status;
};

static void* load_in_thread(void* arg) {
  struct Load* load = arg;
  load->status = use_plugin(load->name, RTLD_NOW, load->count, 1);
  return NULL;
}

static void* churn(void* arg) {
  (void)arg;
  for (int i = 0; i < 100000; ++i) {
    void* volatile block = malloc(64 + i % 4096);  // volatile: kept from the optimiser
    free(block);
  }
  return NULL;
}

enum { kChurners = 4, kMaxLoads = 16 };

static int use_plugins_at_once(long count, int plugins, char** names) {
  pthread_t threads[kChurners + kMaxLoads];
  struct Load loads[kMaxLoads];
  for (int i = 0; i < kChurners; ++i) {
    pthread_create(&threads[i], NULL, churn, NULL);
  }
  for (int i = 0; i < plugins; ++i) {
    loads[i] = (struct Load){names[i], count, 0};
    pthread_create(&threads[kChurners + i], NULL, load_in_thread, &loads[i]);
  }
  int status = 0;
  for (int i = 0; i < kChurners + plugins; ++i) {
    pthread_join(threads[i], NULL);
  }
  for (int i = 0; i < plugins; ++i) {
    status = status ? status : loads[i].status;
  }
  return status;
}

int main(int argc, char** argv) {
  if (argc >= 4 && strcmp(argv[1], "threads") == 0 && argc - 3 <= kMaxLoads) {
    return use_plugins_at_once(atol(argv[2]), argc - 3, argv + 3);
  }
  if (argc < 3 || argc > 4 || (argc == 4 && strcmp(argv[3], "lazy") != 0)) {
    fprintf(stderr, "usage: heap_deepbind_workload PLUGIN N [lazy] | threads N PLUGIN...\n");
    return 2;
  }
  const char* name = argv[1];
  int status = use_plugin(name, argc == 4 ? RTLD_LAZY : RTLD_NOW, atol(argv[2]), strchr(name, '/') == NULL);
  if (status == 0) {
    printf("kept %ld blocks from the plugin\n", atol(argv[2]));
  }
  return status;
}
