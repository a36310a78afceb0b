#include "heap/rebind.h"

#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstring>

#include "heap/dynamic_section.h"
#include "heap/interposed.h"
#include "heap/thread_state.h"

namespace canopy::heap {
namespace {

// Objects a sweep found bound past the library, held open while they are written.
struct Held {
  uintptr_t base;
  void* handle;
  uint64_t local_is_next;  // bit i: a lookup from the object finds interposed function i's next
  char path[PATH_MAX];
};

constexpr int kMaxHeld = 64;
Held held[kMaxHeld];
int held_count = 0;
bool more_to_hold = false;
// The objects a sweep has looked at closely, so that it ends: one it could not hold,
// or whose slots bind elsewhere, is not held again.
constexpr int kMaxConsidered = 4096;
uintptr_t considered[kMaxConsidered];
int considered_count = 0;

bool was_considered(uintptr_t base) {
  for (int i = 0; i < considered_count; ++i) {
    if (considered[i] == base) {
      return true;
    }
  }
  return false;
}

// The objects loaded before the last load with RTLD_DEEPBIND began, or seen by the
// last sweep, by address: none is in the scope of a load still to be swept, so a sweep
// passes them by (a lazy slot of theirs binds as the program's do). Under sweep_lock.
// An object unloaded since the list was taken leaves its address to another: the list
// then counts for nothing.
constexpr int kMaxKnown = 4096;
uintptr_t known[kMaxKnown];
int known_count = 0;
unsigned long long known_unloads = 0;
uintptr_t seen[kMaxKnown];  // by the sweep in progress: known once it ends
int seen_count = 0;
unsigned long long seen_unloads = 0;

Interposed interposed;  // under sweep_lock
pthread_mutex_t sweep_lock = PTHREAD_MUTEX_INITIALIZER;
// Loads with RTLD_DEEPBIND not swept yet: those whose thread sweeps after them, and
// those asked of the library's thread. While there are any, no list of the objects
// loaded before a load is taken: some of them are in such a load's scope.
std::atomic<int> loads_in_flight{0};
std::atomic<int> asks_pending{0};
// Once a load was passed on, every later load is swept after; the last one passed on
// is waited for, briefly, when it has not begun by the time the thread wakes.
std::atomic<bool> ever_asked{false};
std::atomic<unsigned long long> loads_when_asked{0};
std::atomic<unsigned long long> loads_swept{0};
constexpr int kWaitsForTheLoad = 100;  // of 1 ms

// Taken without waiting: a thread in a library's constructor holds the loader's lock,
// which a sweep waits for, and may dlopen with RTLD_DEEPBIND itself.
class SweepLock {
 public:
  SweepLock() : taken_(pthread_mutex_trylock(&sweep_lock) == 0) {}
  ~SweepLock() {
    if (taken_) {
      pthread_mutex_unlock(&sweep_lock);
    }
  }
  bool taken() const { return taken_; }
  SweepLock(const SweepLock&) = delete;
  SweepLock& operator=(const SweepLock&) = delete;

 private:
  bool taken_;
};

struct Bases {
  uintptr_t* into;
  int count;
  unsigned long long unloads;
};

int collect_base(dl_phdr_info* info, size_t, void* data) {
  auto* bases = static_cast<Bases*>(data);
  bases->unloads = info->dlpi_subs;
  if (bases->count < kMaxKnown) {
    bases->into[bases->count++] = info->dlpi_addr;
  }
  return 0;
}

// The loaded objects' addresses, sorted, at most kMaxKnown (the rest count as new), and
// the count of objects unloaded so far.
int collect_bases(uintptr_t* into, unsigned long long& unloads) {
  Bases bases{into, 0, 0};
  dl_iterate_phdr(collect_base, &bases);
  std::sort(into, into + bases.count);
  unloads = bases.unloads;
  return bases.count;
}

bool is_known(uintptr_t base) { return std::binary_search(known, known + known_count, base); }

// What a slot of an interposed function holds.
enum class Binding { kOwn, kNext, kUnbound, kElse };

struct Extent {
  uintptr_t begin = ~uintptr_t{0};
  uintptr_t end = 0;
};

Extent extent_of(const dl_phdr_info& object) {
  Extent extent;
  for (int i = 0; i < object.dlpi_phnum; ++i) {
    const ElfW(Phdr)& segment = object.dlpi_phdr[i];
    if (segment.p_type == PT_LOAD) {
      uintptr_t begin = object.dlpi_addr + segment.p_vaddr;
      extent.begin = begin < extent.begin ? begin : extent.begin;
      extent.end = begin + segment.p_memsz > extent.end ? begin + segment.p_memsz : extent.end;
    }
  }
  return extent;
}

// A lazy PLT slot not called yet holds the way into the object's own PLT, to the
// loader's resolver.
Binding binding_of(const BoundSlot& bound, const InterposedFunction& function, const Extent& object) {
  uintptr_t value = __atomic_load_n(bound.slot, __ATOMIC_RELAXED);
  if (value == function.own) {
    return Binding::kOwn;
  }
  if (value == function.next) {
    return Binding::kNext;
  }
  return bound.lazy && value >= object.begin && value < object.end ? Binding::kUnbound : Binding::kElse;
}

bool is_swept(const dl_phdr_info& object) {
  // Not this library; not the program, whose lookups start from the global scope and
  // which a dlopen never loads (its name is empty).
  return object.dlpi_addr != interposed.own_base && object.dlpi_name && object.dlpi_name[0] != '\0';
}

// First pass: the objects with a slot bound past the library, or not bound yet.
int find_bound_past(dl_phdr_info* info, size_t, void*) {
  if (!is_swept(*info) || is_known(info->dlpi_addr) || was_considered(info->dlpi_addr)) {
    return 0;
  }
  DynamicTables tables;
  if (!read_dynamic(info->dlpi_addr, dynamic_of(*info), tables)) {
    return 0;
  }
  Extent extent = extent_of(*info);
  bool wanted = false;
  for_each_bound_slot(tables, [&](const BoundSlot& bound) {
    int index = wanted ? -1 : interposed.index_of(bound.name);
    if (index >= 0) {
      Binding binding = binding_of(bound, interposed.functions[index], extent);
      wanted = binding == Binding::kNext || binding == Binding::kUnbound;
    }
  });
  if (!wanted) {
    return 0;
  }
  if (held_count == kMaxHeld || considered_count == kMaxConsidered) {
    more_to_hold = held_count == kMaxHeld && considered_count < kMaxConsidered;
    return 0;
  }
  considered[considered_count++] = info->dlpi_addr;
  if (std::strlen(info->dlpi_name) >= PATH_MAX) {
    return 0;
  }
  Held& object = held[held_count++];
  object.base = info->dlpi_addr;
  object.handle = nullptr;
  object.local_is_next = 0;
  std::strcpy(object.path, info->dlpi_name);
  return 0;
}

// Holds each object open, which waits for a load of it in progress to end, and asks
// where a lookup from it finds each function: a slot not bound yet binds there.
void hold_objects() {
  for (int i = 0; i < held_count; ++i) {
    Held& object = held[i];
    void* handle = ::dlopen(object.path, RTLD_LAZY | RTLD_NOLOAD);
    link_map* map = nullptr;
    if (!handle || ::dlinfo(handle, RTLD_DI_LINKMAP, &map) != 0 || map->l_addr != object.base) {
      if (handle) {
        ::dlclose(handle);
      }
      continue;  // unloaded meanwhile, or another object of that path
    }
    object.handle = handle;
    for (int f = 0; f < interposed.count; ++f) {
      if (reinterpret_cast<uintptr_t>(::dlsym(handle, interposed.functions[f].name)) == interposed.functions[f].next) {
        object.local_is_next |= uint64_t{1} << f;
      }
    }
  }
}

const Held* held_at(uintptr_t base) {
  for (int i = 0; i < held_count; ++i) {
    if (held[i].handle && held[i].base == base) {
      return &held[i];
    }
  }
  return nullptr;
}

// The pages the loader made read-only after relocating the object (PT_GNU_RELRO,
// whole pages only, as it protects them).
Extent read_only_after_relocation(const dl_phdr_info& object) {
  const uintptr_t page = static_cast<uintptr_t>(::getpagesize());
  for (int i = 0; i < object.dlpi_phnum; ++i) {
    const ElfW(Phdr)& segment = object.dlpi_phdr[i];
    if (segment.p_type == PT_GNU_RELRO) {
      uintptr_t begin = object.dlpi_addr + segment.p_vaddr;
      return {begin & ~(page - 1), (begin + segment.p_memsz) & ~(page - 1)};
    }
  }
  return {0, 0};
}

// Second pass, over the held objects: each slot bound past the library, or that will
// bind past it, now holds the library's function.
int rebind_held(dl_phdr_info* info, size_t, void*) {
  const Held* object = held_at(info->dlpi_addr);
  if (!object || !is_swept(*info)) {
    return 0;
  }
  DynamicTables tables;
  if (!read_dynamic(info->dlpi_addr, dynamic_of(*info), tables)) {
    return 0;
  }
  Extent extent = extent_of(*info);
  Extent read_only = read_only_after_relocation(*info);
  bool writable = false;
  for_each_bound_slot(tables, [&](const BoundSlot& bound) {
    int index = interposed.index_of(bound.name);
    if (index < 0) {
      return;
    }
    Binding binding = binding_of(bound, interposed.functions[index], extent);
    bool past =
        binding == Binding::kNext || (binding == Binding::kUnbound && (object->local_is_next >> index & 1) != 0);
    if (!past) {
      return;
    }
    auto address = reinterpret_cast<uintptr_t>(bound.slot);
    bool protected_slot = address >= read_only.begin && address < read_only.end;
    if (protected_slot && !writable) {
      writable = ::mprotect(reinterpret_cast<void*>(read_only.begin), read_only.end - read_only.begin,
                            PROT_READ | PROT_WRITE) == 0;
    }
    if (!protected_slot || writable) {
      __atomic_store_n(bound.slot, interposed.functions[index].own, __ATOMIC_RELAXED);
    }
  });
  if (writable) {
    ::mprotect(reinterpret_cast<void*>(read_only.begin), read_only.end - read_only.begin, PROT_READ);
  }
  return 0;
}

int read_load_count(dl_phdr_info* info, size_t, void* data) {
  *static_cast<unsigned long long*>(data) = info->dlpi_adds;
  return 1;  // the same in every object's info
}

unsigned long long load_count() {
  unsigned long long adds = 0;
  dl_iterate_phdr(read_load_count, &adds);
  return adds;
}

}  // namespace

bool rebind_past_profiler() {
  HookScope scope;  // the loader's allocations meanwhile are the library's
  SweepLock locked;
  if (!locked.taken()) {
    return false;
  }
  interposed.read();  // again: a library loaded since may bring a next definition (libstdc++'s new)
  // dlsym takes the loader's lock: a load in progress on another thread ends first,
  // and the count read after it covers its objects.
  ::dlsym(RTLD_DEFAULT, "malloc");
  loads_swept.store(load_count());
  seen_count = collect_bases(seen, seen_unloads);
  if (seen_unloads != known_unloads) {
    known_count = 0;
  }
  considered_count = 0;
  do {
    held_count = 0;
    more_to_hold = false;
    dl_iterate_phdr(find_bound_past, nullptr);
    hold_objects();
    dl_iterate_phdr(rebind_held, nullptr);
    for (int i = 0; i < held_count; ++i) {
      if (held[i].handle) {
        ::dlclose(held[i].handle);
      }
    }
  } while (more_to_hold);
  std::copy(seen, seen + seen_count, known);
  known_count = seen_count;
  known_unloads = seen_unloads;
  ::dlerror();  // a lookup that found nothing leaves its error to the program's next dlerror
  return true;
}

void rebind_before_load() {
  SweepLock locked;
  if (locked.taken() && loads_in_flight.load() == 0 && asks_pending.load() == 0) {
    HookScope scope;
    known_count = collect_bases(known, known_unloads);
  }
}

void rebind_load_begins() { loads_in_flight.fetch_add(1); }
void rebind_load_ends() { loads_in_flight.fetch_sub(1); }

void rebind_after_fork_in_child() { sweep_lock = PTHREAD_MUTEX_INITIALIZER; }

void rebind_by_the_thread(bool load_to_come) {
  if (load_to_come) {
    loads_when_asked.store(load_count());
  }
  asks_pending.fetch_add(1);
  ever_asked.store(true);
}

void rebind_if_asked_and_loaded() {
  if (!ever_asked.load()) {
    return;
  }
  const int asks = asks_pending.load();
  if (asks > 0) {
    // Woken as the program's thread passed its dlopen on: the load may not have
    // begun. Once it has, the sweep's first lookup waits for it to end.
    timespec millisecond{0, 1'000'000};
    for (int i = 0; i < kWaitsForTheLoad && load_count() == loads_when_asked.load(); ++i) {
      nanosleep(&millisecond, nullptr);
    }
  }
  bool swept = load_count() == loads_swept.load() || rebind_past_profiler();
  if (swept && asks > 0) {
    asks_pending.fetch_sub(asks);
  }
}

}  // namespace canopy::heap
