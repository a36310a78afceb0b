// The stubs of a procedure linkage table named as objdump names them ("malloc@plt"), on
// real objects: this machine's C library and C++ library, this test program, and a
// program linked with a table for indirect branch tracking (.plt.sec, each stub behind
// an endbr64). objdump's labels are the truth, at each stub's first and last byte. Where
// objdump names an IFUNC's stub by its resolver's address ("*ABS*+0x9f550@plt"), canopy
// names it by the IFUNC's symbol there ("strnlen@plt").
#include "symbolize/plt_stubs.h"

#include <dlfcn.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>

#include "symbolize/build_id.h"
#include "symbolize/demangle.h"
#include "symbolize/module_file.h"

namespace canopy::symbolize {
namespace {

struct ObjdumpStub {
  uint64_t start = 0;
  uint64_t end = 0;  // the next label's address, or the section's end
  std::string label = "";
};

// objdump's labels of the object's PLT sections ("0000000000026368 <malloc@plt>:"),
// with the address each one's code ends at (from its last instruction's line).
std::map<uint64_t, ObjdumpStub> objdump_stubs(const std::string& path) {
  std::map<uint64_t, ObjdumpStub> stubs;
  std::string command = "objdump -d --no-show-raw-insn -j .plt -j .plt.sec -j .plt.got '" + path + "' 2>/dev/null";
  std::unique_ptr<FILE, int (*)(FILE*)> out(popen(command.c_str(), "r"), pclose);
  if (!out) {
    return stubs;
  }
  char line[4096];
  ObjdumpStub* current = nullptr;
  while (std::fgets(line, sizeof line, out.get()) != nullptr) {
    unsigned long long address = 0;
    char label[2048];
    if (std::sscanf(line, "%llx <%2047[^>]>:", &address, label) == 2) {
      current = &stubs[address];
      *current = {address, address, label};
    } else if (current != nullptr && std::sscanf(line, " %llx:", &address) == 1) {
      current->end = address + 1;  // at least into its last instruction
    } else if (line[0] == '\n' || std::strncmp(line, "Disassembly", 11) == 0) {
      current = nullptr;
    }
  }
  return stubs;
}

// What canopy names an address as: the symbol index's name, as source_frames shows it.
std::string name_at(const SymbolIndex& index, uint64_t address) {
  const SymbolIndex::Symbol* symbol = index.symbol_at(address);
  return symbol == nullptr ? "(none)" : demangle_symbol(symbol->name.c_str()) + (symbol->plt_stub ? "@plt" : "");
}

void expect_stubs_named_as_objdump_does(const std::string& path, size_t at_least) {
#ifndef __x86_64__
  GTEST_SKIP() << "PLT stubs are named on x86-64 only";
#endif
  SCOPED_TRACE(path);
  auto build_id = read_build_id_hex(path);
  ASSERT_TRUE(build_id.ok());
  ModuleFile file(ModuleRef{path, *build_id});
  ASSERT_EQ(file.state(), ModuleState::kResolved);
  const SymbolIndex& index = file.symbols();
  size_t compared = 0;
  for (const auto& [start, stub] : objdump_stubs(path)) {
    const std::string suffix = "@plt";
    // The table's header reads "first@plt-0x10": no function's.
    if (stub.label.size() <= suffix.size() ||
        stub.label.compare(stub.label.size() - suffix.size(), suffix.size(), suffix) != 0) {
      continue;
    }
    std::string function = stub.label.substr(0, stub.label.size() - suffix.size());
    if (function.rfind("*ABS*+0x", 0) == 0) {
      const SymbolIndex::Symbol* ifunc = index.symbol_at(std::stoull(function.substr(8), nullptr, 16));
      ASSERT_NE(ifunc, nullptr) << stub.label;
      function = ifunc->name;
    }
    const std::string expected = demangle_symbol(function.c_str()) + suffix;
    for (uint64_t address : {stub.start, stub.end - 1}) {
      EXPECT_EQ(name_at(index, address), expected) << std::hex << "at 0x" << address;
    }
    ++compared;
  }
  EXPECT_GE(compared, at_least);
}

std::string library_of(void* function) {
  Dl_info info{};
  EXPECT_NE(dladdr(function, &info), 0);
  return info.dli_fname != nullptr ? info.dli_fname : "";
}

TEST(PltStubs, TheCLibrarysStubsAreNamedAsObjdumpNamesThem) {
  // Its .plt holds IFUNCs' stubs, and its .plt.got malloc's and free's.
  expect_stubs_named_as_objdump_does(library_of(reinterpret_cast<void*>(&::getpid)), 10);
}

TEST(PltStubs, TheCxxLibrarysStubsAreNamedAsObjdumpNamesThem) {
  expect_stubs_named_as_objdump_does(library_of(reinterpret_cast<void*>(&__cxa_begin_catch)), 500);
}

TEST(PltStubs, ThisProgramsStubsAreNamedAsObjdumpNamesThem) {
  // By its path: objdump's /proc/self/exe would be objdump.
  std::unique_ptr<char, decltype(&std::free)> path(realpath("/proc/self/exe", nullptr), &std::free);
  ASSERT_NE(path, nullptr);
  expect_stubs_named_as_objdump_does(path.get(), 20);
}

#ifdef CANOPY_IBT_PLT_PROGRAM
TEST(PltStubs, AProgramWithIndirectBranchTrackingHasItsStubsNamed) {
  expect_stubs_named_as_objdump_does(CANOPY_IBT_PLT_PROGRAM, 3);
}
#endif

// Code of the table that no stub holds (its header, which a lazy binding passes
// through) is named after the table, not after the function before it (`_init`).
TEST(PltStubs, TheTablesHeaderIsNamedAfterTheTable) {
  const std::string path = library_of(reinterpret_cast<void*>(&__cxa_begin_catch));
  auto build_id = read_build_id_hex(path);
  ASSERT_TRUE(build_id.ok());
  ModuleFile file(ModuleRef{path, *build_id});
  ASSERT_EQ(file.state(), ModuleState::kResolved);
  auto stubs = objdump_stubs(path);
  auto header = std::find_if(stubs.begin(), stubs.end(),
                             [](const auto& stub) { return stub.second.label.find("@plt-0x") != std::string::npos; });
  ASSERT_NE(header, stubs.end());
  EXPECT_EQ(name_at(file.symbols(), header->first), "[.plt]");
}

// Each form of stub names its slot: the address after the jump plus its displacement.
// The `bnd` forms come from older linkers (-z bndplt, which this machine's ld ignores).
TEST(PltStubs, EachFormOfStubNamesTheSlotItJumpsThrough) {
  constexpr uint64_t kAt = 0x1000;
  const unsigned char plain[16] = {0xff, 0x25, 0xfa, 0x2f, 0x00, 0x00, 0x68, 0x00, 0x00, 0x00, 0x00, 0xe9};
  const unsigned char bnd[16] = {0xf2, 0xff, 0x25, 0xf9, 0x2f, 0x00, 0x00, 0x0f, 0x1f, 0x00};
  const unsigned char endbr[16] = {0xf3, 0x0f, 0x1e, 0xfa, 0xff, 0x25, 0xf6, 0x2f, 0x00, 0x00};
  const unsigned char endbr_bnd[16] = {0xf3, 0x0f, 0x1e, 0xfa, 0xf2, 0xff, 0x25, 0xf5, 0x2f, 0x00, 0x00};
  const unsigned char backwards[8] = {0xff, 0x25, 0xfa, 0xff, 0xff, 0xff, 0x66, 0x90};  // disp -6
  EXPECT_EQ(plt_stub_slot(plain, sizeof plain, kAt), kAt + 0x3000);
  EXPECT_EQ(plt_stub_slot(bnd, sizeof bnd, kAt), kAt + 0x3000);
  EXPECT_EQ(plt_stub_slot(endbr, sizeof endbr, kAt), kAt + 0x3000);
  EXPECT_EQ(plt_stub_slot(endbr_bnd, sizeof endbr_bnd, kAt), kAt + 0x3000);
  EXPECT_EQ(plt_stub_slot(backwards, sizeof backwards, kAt), kAt);
  // The header pushes first; a lazy binding's stub pushes and jumps back.
  const unsigned char header[16] = {0xff, 0x35, 0x02, 0x30, 0x00, 0x00, 0xff, 0x25, 0x04, 0x30, 0x00, 0x00};
  const unsigned char lazy[16] = {0xf3, 0x0f, 0x1e, 0xfa, 0x68, 0x00, 0x00, 0x00, 0x00, 0xf2, 0xe9};
  EXPECT_EQ(plt_stub_slot(header, sizeof header, kAt), std::nullopt);
  EXPECT_EQ(plt_stub_slot(lazy, sizeof lazy, kAt), std::nullopt);
  // A jump cut off by the entry's end.
  EXPECT_EQ(plt_stub_slot(endbr_bnd, 8, kAt), std::nullopt);
}

}  // namespace
}  // namespace canopy::symbolize
