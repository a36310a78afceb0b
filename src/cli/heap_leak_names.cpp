#include "cli/heap_leak_names.h"

#include "symbolize/heap_stack_names.h"
#include "symbolize/leak_site.h"

namespace canopy::cli {
namespace {

// Deep enough to pass the library's own frames (a container's allocate, inlined into
// its callers several times over) and a JIT runtime's beneath the program's JIT code.
constexpr size_t kFramesToSearch = 64;

}  // namespace

SymbolizedHeapStacks::SymbolizedHeapStacks() = default;
SymbolizedHeapStacks::~SymbolizedHeapStacks() = default;

symbolize::HeapStackNames& SymbolizedHeapStacks::names_of(const store::HeapProfile& profile) {
  if (profile_ != &profile) {
    names_ = std::make_unique<symbolize::HeapStackNames>(profile);
    profile_ = &profile;
  }
  return *names_;
}

analyze::HeapStackAliases SymbolizedHeapStacks::stacks_that_read_alike(const store::HeapProfile& profile) {
  return names_of(profile).stacks_that_read_alike();
}

void SymbolizedHeapStacks::name_leaks(const store::HeapProfile& profile, std::vector<analyze::HeapLeak>& leaks) {
  for (analyze::HeapLeak& leak : leaks) {
    leak.where = symbolize::leak_site(names_of(profile).frames(leak.stack_id, kFramesToSearch));
  }
}

}  // namespace canopy::cli
