// cli/: the summary's heap stacks read by the symbolizer (analyze/heap_leaks.h), for
// record and report, which print that summary: the stacks that read alike, and each
// leak's code.
#pragma once

#include <memory>
#include <vector>

#include "analyze/heap_leaks.h"

namespace canopy::symbolize {
class HeapStackNames;
}

namespace canopy::cli {

class SymbolizedHeapStacks : public analyze::HeapStackReading {
 public:
  SymbolizedHeapStacks();
  ~SymbolizedHeapStacks() override;

  analyze::HeapStackAliases stacks_that_read_alike(const store::HeapProfile& profile) override;
  // Each leak's `where`, from its stack (symbolize/leak_site.h).
  void name_leaks(const store::HeapProfile& profile, std::vector<analyze::HeapLeak>& leaks) override;

 private:
  symbolize::HeapStackNames& names_of(const store::HeapProfile& profile);

  // For the one profile it was asked about: each frame is named once for both.
  const store::HeapProfile* profile_ = nullptr;
  std::unique_ptr<symbolize::HeapStackNames> names_;
};

}  // namespace canopy::cli
