// Where a leak's memory went, in the words of a summary line (symbolize/leak_site.h).
#include <gtest/gtest.h>

#include "symbolize/leak_site.h"

namespace canopy::symbolize {
namespace {

NamedFrame native(std::string function, std::string location) { return {std::move(function), std::move(location)}; }

NamedFrame jitted(std::string function, std::string location = "perf-4242.map") {
  NamedFrame frame{std::move(function), std::move(location)};
  frame.jit = true;
  return frame;
}

TEST(LeakSite, IsTheFrameThatCalledTheAllocatorAndItsWrappers) {
  EXPECT_EQ(leak_site({native("operator new(unsigned long)", "libstdc++.so.6"),
                       native("std::vector<int, std::allocator<int> >::_M_realloc_insert", "stl_vector.h:1287"),
                       native("xcalloc", "xmalloc.c:164"), native("load_table", "table.c:42"),
                       native("main", "main.c:7")}),
            "load_table (table.c:42)");
  EXPECT_EQ(leak_site({native("g_malloc", "libglib-2.0.so.0"), native("?", "libfoo.so+0x1a2b (missing)")}),
            "? (libfoo.so+0x1a2b (missing))");
  EXPECT_EQ(leak_site({native("operator new(unsigned long)", "libstdc++.so.6")}),
            "operator new(unsigned long) (libstdc++.so.6)")
      << "nothing but the allocator: its frame";
  EXPECT_EQ(leak_site({}), "");
}

// A Rust program's debug build, as the symbolizer names it: vec![7u8; n] through the
// alloc crate's frames, inlined and not, then the program's.
TEST(LeakSite, PassesRustsAllocCrate) {
  EXPECT_EQ(leak_site({native("<alloc::raw_vec::RawVecInner>::try_allocate_in", "rl"),
                       native("alloc::raw_vec::RawVecInner<A>::with_capacity_in", "mod.rs:433"),
                       native("<u8 as alloc::vec::spec_from_elem::SpecFromElem>::from_elem", "spec_from_elem.rs:53"),
                       native("alloc::vec::from_elem", "mod.rs:3651"), native("rl::remember", "main.rs:2"),
                       native("rl::main", "main.rs:5")}),
            "rl::remember (main.rs:2)");
  EXPECT_EQ(leak_site({native("__rust_alloc", "rl"), native("<hashbrown::raw::RawTableInner>::fallible_with_capacity", "rl"),
                       native("rl::index", "main.rs:9")}),
            "rl::index (main.rs:9)");
}

// The JVM's own heap, as a stripped libjvm.so names it: past HotSpot's wrappers and its
// arenas to the code that wanted the memory.
TEST(LeakSite, PassesTheJvmsWrappersAndArenas) {
  EXPECT_EQ(leak_site({native("os::malloc(unsigned long, MEMFLAGS, NativeCallStack const&)", "libjvm.so"),
                       native("AllocateHeap(unsigned long, MEMFLAGS, AllocFailStrategy::AllocFailEnum)", "libjvm.so"),
                       native("G1CollectedHeap::G1CollectedHeap()", "libjvm.so"),
                       native("G1Arguments::create_heap()", "libjvm.so")}),
            "G1CollectedHeap::G1CollectedHeap() (libjvm.so)");
  EXPECT_EQ(
      leak_site({native("os::malloc(unsigned long, MEMFLAGS, NativeCallStack const&)", "libjvm.so"),
                 native("ChunkPool::allocate_chunk(unsigned long, AllocFailStrategy::AllocFailEnum)", "libjvm.so"),
                 native("Arena::Arena(MEMFLAGS, unsigned long)", "libjvm.so"),
                 native("SymbolTable::create_table()", "libjvm.so")}),
      "SymbolTable::create_table() (libjvm.so)");
  // A program's function that only begins like one of them is the program's.
  EXPECT_EQ(
      leak_site({native("operator new(unsigned long)", "libstdc++.so.6"), native("os::mallocator_stats()", "app")}),
      "os::mallocator_stats() (app)");
}

TEST(LeakSite, ARuntimesCodeUnderJitCodeIsFollowedByTheProgramsFrame) {
  // Node's Buffer.alloc in a function of the program, as V8 names it with
  // --perf-basic-prof: the runtime's C++, an unnamed stub, Node's own JavaScript, then
  // the program's.
  std::vector<NamedFrame> frames = {
      native("node::NodeArrayBufferAllocator::Allocate(unsigned long)", "node"),
      native("v8::internal::BackingStore::Allocate(v8::internal::Isolate*, unsigned long)", "node"),
      native("Builtins_CEntry_Return1_ArgvOnStack_BuiltinExit", "node"),
      jitted("?"),
      jitted("Builtin:ArrayBufferConstructor"),
      jitted("JS:~alloc node:buffer:389:30"),
      jitted("JS:*grow /app/x.js:2:19"),
      jitted("JS:~Module._compile node:internal/modules/cjs/loader:1483:37"),
  };
  EXPECT_EQ(leak_site(frames),
            "node::NodeArrayBufferAllocator::Allocate(unsigned long) (node) from JS:*grow /app/x.js:2:19");
}

TEST(LeakSite, JitCodeFollowsTheRuntimeBeneathItOrIsNamedAlone) {
  // CPython 3.12's -X perf: the interpreter's C under a Python function's trampoline.
  EXPECT_EQ(leak_site({native("PyList_Append", "listobject.c:334"), jitted("py::append_row:/app/etl.py"),
                       jitted("py::main:/app/etl.py")}),
            "PyList_Append (listobject.c:334) from py::append_row:/app/etl.py");
  EXPECT_EQ(leak_site({jitted("py::append_row:/app/etl.py"), jitted("py::main:/app/etl.py")}),
            "py::append_row:/app/etl.py");
  // A map that is gone names nothing: the frame says which map and where.
  EXPECT_EQ(leak_site({jitted("?", "perf-4242.map+0x7f0012 (missing)")}), "? (perf-4242.map+0x7f0012 (missing))");
}

}  // namespace
}  // namespace canopy::symbolize
