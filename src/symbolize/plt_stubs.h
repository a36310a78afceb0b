// symbolize/: names for the stubs of an object's procedure linkage table, which no
// symbol covers. A call to another object's function jumps through its stub, so a CPU
// sample lands there now and then; the nearest symbol before the table is `_init`, the
// last of .init and sizeless, which named those samples. perf and objdump name a stub
// after the function it jumps to, `malloc@plt`, and so does canopy.
#pragma once

#include <gelf.h>
#include <libelf.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace canopy::symbolize {

struct PltStub {
  uint64_t start = 0;  // at the module's addresses (the ELF's plus `bias`)
  uint64_t end = 0;
  // The function's symbol, as the relocation of the slot the stub jumps through names
  // it; empty for a slot of an IFUNC resolved as the object loaded (IRELATIVE), whose
  // function is the symbol at `resolver`.
  std::string function = "";
  uint64_t resolver = 0;
};

// A .plt, .plt.sec or .plt.got section's address range, for what no stub of it holds (a
// lazy binding's entries, the table's header): code that is none of the object's functions.
struct PltSection {
  uint64_t start = 0;
  uint64_t end = 0;
  std::string name = "";  // ".plt", ".plt.sec", ".plt.got"
};

struct PltTable {
  std::vector<PltSection> sections = {};
  // The named stubs of those sections: each stub's jump names the slot it reads
  // (plt_stub_slot). x86-64 only: none for another machine.
  std::vector<PltStub> stubs = {};
};

// The object's .plt, .plt.sec and .plt.got, read in one pass over its sections.
PltTable read_plt(Elf* elf, GElf_Addr bias);

// The slot that the stub of `size` bytes at `address` jumps through: `jmp
// *disp32(%rip)`, after an `endbr64` (a table built for indirect branch tracking) and a
// `bnd` prefix (one built for MPX, as older linkers did with -z bndplt). None for the
// table's header, or a lazy binding's `push; jmp`.
std::optional<uint64_t> plt_stub_slot(const unsigned char* stub, size_t size, uint64_t address);

}  // namespace canopy::symbolize
