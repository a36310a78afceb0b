// Objects bound past the profiler, and bound back. A library loaded with RTLD_DEEPBIND
// looks up its symbols in itself and its own dependencies first, so its malloc and
// free are the C library's, not the preloaded profiler's. Its allocations would go
// unseen, and a block the program allocated and the plugin freed would stay in the
// live table for ever: a leak that is not. Heaptrack drops the flag, which changes
// every other lookup the library makes; instead, each of its slots (GOT entries) that
// holds the next definition of a function the profiler defines is written with the
// profiler's own, the binding a library loaded without the flag gets. Only such slots:
// a library's own malloc, or any other symbol, keeps the binding the flag gave it.
#pragma once

namespace canopy::heap {

// Rebinds, now, the objects loaded since the last sweep or the list rebind_before_load
// took (every one but this library, the first time). Each object is written only once
// its load is complete: one that another thread is loading is waited for. False, at
// once, when another thread is rebinding: a load it may have missed is then left to
// rebind_by_the_thread. Not from a signal handler.
bool rebind_past_profiler();

// Around a load with RTLD_DEEPBIND (dlopen_hook.cpp): before it, the objects already
// loaded, which a sweep then passes by (none is in its scope, unless another such load
// is not swept yet); and, for one the calling thread sweeps after, its span.
void rebind_before_load();
void rebind_load_begins();
void rebind_load_ends();

// For a load with RTLD_DEEPBIND the calling thread does not rebind after
// (dlopen_hook.cpp): the library's thread, woken, rebinds once the load is done, and
// after every later load. `load_to_come`: asked before the load is passed on (it may
// not have begun when the thread wakes), not after it.
void rebind_by_the_thread(bool load_to_come);
// The library's thread, on each wake-up.
void rebind_if_asked_and_loaded();

// In a forked child: a sweep another thread of the parent was in is not the child's.
void rebind_after_fork_in_child();

}  // namespace canopy::heap
