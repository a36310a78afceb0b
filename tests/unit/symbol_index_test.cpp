// The symbol index against libdw's own lookup, which it stands in for, on real objects:
// this machine's C library and this test program, at each function symbol's first,
// middle and last byte, and the byte past its end, for a thousand symbols of each. Both must find a symbol that starts
// at the same address: of aliases, libdw may name another (a local
// `_nl_make_l10nflist.localalias` where the index names the global `_nl_make_l10nflist`).
#include "symbolize/symbol_index.h"

#include <dlfcn.h>
#include <gelf.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <string>
#include <vector>

#include "symbolize/build_id.h"
#include "symbolize/module_file.h"

namespace canopy::symbolize {
namespace {

std::string c_library_path() {
  Dl_info info{};
  EXPECT_NE(dladdr(reinterpret_cast<void*>(&::getpid), &info), 0);
  return info.dli_fname != nullptr ? info.dli_fname : "";
}

void expect_names_as_libdw(const std::string& path) {
  SCOPED_TRACE(path);
  auto build_id = read_build_id_hex(path);
  ASSERT_TRUE(build_id.ok());
  ModuleFile file(ModuleRef{path, *build_id});
  ASSERT_EQ(file.state(), ModuleState::kResolved);
  Dwfl_Module* module = file.dwfl_module();
  const SymbolIndex& index = file.symbols();
  int count = dwfl_module_getsymtab(module);
  ASSERT_GT(count, 100);
  int64_t compared = 0;
  int64_t differed = 0;
  // libdw reads the whole table at each lookup: a spread of a thousand symbols or so.
  const int stride = std::max(1, count / 1000);
  for (int i = 1; i < count; i += stride) {
    GElf_Sym symbol;
    GElf_Addr start = 0;
    if (dwfl_module_getsym_info(module, i, &symbol, &start, nullptr, nullptr, nullptr) == nullptr ||
        GELF_ST_TYPE(symbol.st_info) != STT_FUNC || symbol.st_shndx == SHN_UNDEF || symbol.st_size == 0) {
      continue;
    }
    for (GElf_Addr address : {start, start + symbol.st_size / 2, start + symbol.st_size - 1, start + symbol.st_size}) {
      GElf_Off offset = 0;
      GElf_Sym found;
      const char* expected = dwfl_module_addrinfo(module, address, &offset, &found, nullptr, nullptr, nullptr);
      // Past a function's end lies padding or a data object: the index names code only.
      if (expected != nullptr && GELF_ST_TYPE(found.st_info) != STT_FUNC && GELF_ST_TYPE(found.st_info) != STT_GNU_IFUNC &&
          GELF_ST_TYPE(found.st_info) != STT_NOTYPE) {
        continue;
      }
      const SymbolIndex::Symbol* named = index.symbol_at(address);
      ++compared;
      const bool alike = named && expected ? named->start == address - offset : !named && !expected;
      if (!alike && ++differed <= 10) {
        ADD_FAILURE() << std::hex << "at 0x" << address << ": " << (named ? named->name : "(none)") << ", libdw "
                      << (expected ? expected : "(none)");
      }
    }
  }
  EXPECT_GT(compared, 400);
  EXPECT_EQ(differed, 0) << "of " << compared;
}

TEST(SymbolIndex, NamesTheCLibrarysCodeAsLibdwDoes) { expect_names_as_libdw(c_library_path()); }

TEST(SymbolIndex, NamesThisProgramsCodeAsLibdwDoes) { expect_names_as_libdw("/proc/self/exe"); }

}  // namespace
}  // namespace canopy::symbolize
