// A plugin for the heap profiler's test of RTLD_DEEPBIND
// (integration/heap_deepbind_test.cpp). Loaded with the flag, its own dependencies come
// before the program's objects in its lookups: malloc and free are the C library's,
// past the preloaded profiler, unless the profiler binds them back to its own.
#include <stdlib.h>
#include <string.h>

// The malloc the plugin calls: its GOT entry's, as the loader bound it.
void* deepbind_plugin_malloc(void) { return (void*)&malloc; }

// A block the program allocated, freed by the plugin. Its address is not taken, so
// that free is called through a PLT entry, which RTLD_LAZY binds on the first call.
void deepbind_plugin_take(void* block) { free(block); }

// A block the plugin allocates, touched, for the program to keep.
void* deepbind_plugin_make(size_t size) {
  char* block = malloc(size);
  if (block) {
    memset(block, 1, size);
  }
  return block;
}
