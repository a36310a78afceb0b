// libcanopy-heap.so's life in a process: configured from the environment at load,
// its thread started on the first sample (at load when sampling starts off, so that
// the recorder can turn it on), snapshots on an interval, on a new peak, on the
// recorder's request and at exit (by exit() or _exit()). A forked child starts afresh
// on a connection of its own; the program's exec replaces the library with a new copy.
// In a program built with a sanitizer, or whose malloc comes before the profiler's, it
// stands aside at load (stand_aside.h): it says so to the recorder, and samples nothing.
//
// The library works without the rest of canopy and links none of it: loaded outside
// a recording (no socket in the environment) it counts nothing.
#pragma once

namespace canopy::heap {

// Whether this process is profiled: in a recording, not standing aside.
bool agent_profiling();

// For a load the library's thread is to rebind after (rebind.h): the thread, woken,
// or started if it was not.
void agent_expect_rebind();

// From the sampled path, outside the profile's lock.
void agent_on_sample(bool new_peak);

// From _exit and _Exit (exit_hooks.cpp): the exit snapshot that the library's
// destructor sends when a program leaves by exit().
void agent_before_exit();

// Around a call the kernel refuses to a process with more than one thread
// (namespace_hooks.cpp): the library's thread ended before it, started again after.
void agent_before_single_thread_call();
void agent_after_single_thread_call();

// Before the program gives up its user or its root directory (credential_hooks.cpp,
// namespace_hooks.cpp): the connection to the recorder, made while it can be.
void agent_connect_while_reachable();

}  // namespace canopy::heap
