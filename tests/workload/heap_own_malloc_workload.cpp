// Two programs for the heap profiler's test of whose malloc comes first
// (integration/heap_own_malloc_test.cpp), from this one source:
// - with CANOPY_OWN_MALLOC, a program that defines the allocation functions itself, as
//   one with an allocator linked in does (Chromium's PartitionAlloc, a static tcmalloc
//   or jemalloc). Its definitions pass on to the C library's own entry points and
//   count what they were asked for, so the program can tell that each of its blocks
//   came from them;
// - without, built without PIC: a program whose code takes malloc's address, for which
//   the linker gives malloc a canonical PLT entry in the program. The loader then finds
//   the program's undefined "malloc" first, though it leads to the preloaded one.
//
//   heap_own_malloc_workload N SIZE   allocates N blocks of SIZE with new[] and N with
//                                     malloc (through a pointer), touched and kept,
//                                     and again in a forked child that ends by exit()
//
// Exit status 3: a block did not come from the program's own malloc. 4: the program
// built without PIC has no canonical PLT entry for malloc, and tests nothing.
#include <dlfcn.h>
#include <link.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#ifdef CANOPY_OWN_MALLOC
extern "C" {
void* __libc_malloc(size_t size);
void __libc_free(void* block);
void* __libc_calloc(size_t count, size_t size);
void* __libc_realloc(void* block, size_t size);
void* __libc_memalign(size_t alignment, size_t size);

namespace {
std::atomic<size_t> own_bytes{0};
}

void* malloc(size_t size) {
  own_bytes += size;
  return __libc_malloc(size);
}
void free(void* block) { __libc_free(block); }
void* calloc(size_t count, size_t size) {
  own_bytes += count * size;
  return __libc_calloc(count, size);
}
void* realloc(void* block, size_t size) {
  own_bytes += size;
  return __libc_realloc(block, size);
}
void* memalign(size_t alignment, size_t size) {
  own_bytes += size;
  return __libc_memalign(alignment, size);
}
void* aligned_alloc(size_t alignment, size_t size) { return memalign(alignment, size); }
int posix_memalign(void** into, size_t alignment, size_t size) {
  void* block = memalign(alignment, size);
  if (!block) {
    return ENOMEM;
  }
  *into = block;
  return 0;
}
}  // extern "C"
#endif

namespace {

// Taken in the code, so that a build without PIC makes it the PLT entry's address.
void* (*volatile allocate)(size_t);

#ifndef CANOPY_OWN_MALLOC
// Whether the loader's first "malloc" is the program's undefined one at its PLT entry.
bool malloc_has_a_canonical_plt_entry() {
  void* found = dlsym(RTLD_DEFAULT, "malloc");
  Dl_info info;
  ElfW(Sym)* symbol = nullptr;
  return found && dladdr1(found, &info, reinterpret_cast<void**>(&symbol), RTLD_DL_SYMENT) && symbol &&
         symbol->st_shndx == SHN_UNDEF;
}
#endif

int allocate_blocks(long count, long size) {
#ifdef CANOPY_OWN_MALLOC
  const size_t before = own_bytes.load();
#endif
  allocate = &malloc;
  for (long i = 0; i < count; ++i) {
    char* made = new char[size];
    std::memset(made, 1, size);  // resident, as a real program's would be
    auto* taken = static_cast<char*>(allocate(size));
    std::memset(taken, 1, size);
  }
#ifdef CANOPY_OWN_MALLOC
  const size_t asked = own_bytes.load() - before;
  if (asked < static_cast<size_t>(2 * count * size)) {
    std::fprintf(stderr, "its own malloc was asked for %zu bytes of %ld\n", asked, 2 * count * size);
    return 3;
  }
#endif
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: heap_own_malloc_workload N SIZE\n");
    return 2;
  }
#ifndef CANOPY_OWN_MALLOC
  if (!malloc_has_a_canonical_plt_entry()) {
    std::fprintf(stderr, "malloc has no canonical PLT entry in the program\n");
    return 4;
  }
#endif
  long count = std::atol(argv[1]);
  long size = std::atol(argv[2]);
  pid_t child = fork();
  if (child == 0) {
    std::exit(allocate_blocks(count, size));
  }
  int status = 0;
  if (child < 0 || waitpid(child, &status, 0) != child || !WIFEXITED(status)) {
    std::fprintf(stderr, "the forked child failed\n");
    return 2;
  }
  if (WEXITSTATUS(status) != 0) {
    return WEXITSTATUS(status);
  }
  return allocate_blocks(count, size);
}
