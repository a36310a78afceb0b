#include "cli/heap_leak_names.h"

#include "symbolize/heap_stack_names.h"
#include "symbolize/leak_site.h"

namespace canopy::cli {
namespace {

// Deep enough to pass the library's own frames (a container's allocate, inlined into
// its callers several times over) and a JIT runtime's beneath the program's JIT code.
constexpr size_t kFramesToSearch = 64;

}  // namespace

void name_heap_leaks(const store::HeapProfile& profile, std::vector<analyze::HeapLeak>& leaks) {
  if (leaks.empty()) {
    return;
  }
  symbolize::HeapStackNames names(profile);
  for (analyze::HeapLeak& leak : leaks) {
    leak.where = symbolize::leak_site(names.frames(leak.stack_id, kFramesToSearch));
  }
}

}  // namespace canopy::cli
