// dlopen, in front of the C library's, for one flag: RTLD_DEEPBIND, which binds the
// loaded library's malloc past the profiler (rebind.h). Every other call is passed on
// whole as a jump, so that the C library's dlopen sees the program's caller: it
// searches the caller's RUNPATH for a bare name, expands $ORIGIN from the caller's
// path, and loads into the caller's namespace.
#include <dlfcn.h>
#include <link.h>

#include <atomic>
#include <cstring>

#include "heap/agent.h"
#include "heap/dynamic_section.h"
#include "heap/next_definition.h"
#include "heap/rebind.h"

namespace {

using canopy::heap::DynamicTables;

std::atomic<void*> next_dlopen{nullptr};

struct AnyRpath {
  bool found = false;
};

int find_rpath(dl_phdr_info* info, size_t, void* data) {
  const ElfW(Dyn)* dynamic = canopy::heap::dynamic_of(*info);
  for (const ElfW(Dyn)* entry = dynamic; entry && entry->d_tag != DT_NULL; ++entry) {
    if (entry->d_tag == DT_RPATH && info->dlpi_name && info->dlpi_name[0] != '\0') {
      static_cast<AnyRpath*>(data)->found = true;
      return 1;
    }
  }
  return 0;
}

// Whether the C library's dlopen may load another object for `file` when this
// library calls it than when `caller` does: a name with $ORIGIN (or another token),
// expanded from the caller's path; a caller in a namespace of its own; a bare name,
// searched on the caller's RUNPATH or RPATH, the RPATHs of the objects that loaded it,
// or not on the system's paths at all. This library has none of those.
bool found_from_caller(const char* file, const void* caller) {
  if (std::strchr(file, '$')) {
    return true;
  }
  Dl_info info;
  link_map* map = nullptr;
  if (!::dladdr1(caller, &info, reinterpret_cast<void**>(&map), RTLD_DL_LINKMAP) || !map) {
    return true;
  }
  Lmid_t namespace_id = LM_ID_BASE;
  if (::dlinfo(map, RTLD_DI_LMID, &namespace_id) != 0 || namespace_id != LM_ID_BASE) {
    return true;
  }
  if (std::strchr(file, '/')) {
    return false;
  }
  DynamicTables tables;
  canopy::heap::read_dynamic(map->l_addr, map->l_ld, tables);
  AnyRpath rpath;
  dl_iterate_phdr(find_rpath, &rpath);  // the loaders' chain is the loader's to know
  return tables.has_search_path || tables.no_default_paths || rpath.found;
}

// By the library's thread, which this wakes (and starts, if no sample has).
void rebind_by_the_thread(bool load_to_come) {
  canopy::heap::rebind_by_the_thread(load_to_come);
  canopy::heap::agent_expect_rebind();
}

}  // namespace

extern "C" __attribute__((visibility("default"))) void* dlopen(const char* file, int mode) {
  auto next = canopy::heap::next_definition<void*(const char*, int)>(next_dlopen, "dlopen");
  if (!(mode & RTLD_DEEPBIND) || !file || !canopy::heap::agent_profiling()) {
    return next(file, mode);
  }
  canopy::heap::rebind_before_load();
  if (found_from_caller(file, __builtin_return_address(0))) {
    rebind_by_the_thread(true);
    return next(file, mode);
  }
  canopy::heap::rebind_load_begins();
  void* handle = next(file, mode);
  if (handle && !canopy::heap::rebind_past_profiler()) {
    rebind_by_the_thread(false);  // another thread is rebinding, and may have missed it
  }
  canopy::heap::rebind_load_ends();
  return handle;
}
