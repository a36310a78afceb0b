// Where an object's addresses lie in a process, from one of its code mappings and its
// program headers, as the linkers lay them out. The files are program headers only: all that
// elf_load_bias reads.
#include "probe/elf_load_bias.h"

#include <elf.h>
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <vector>

#include "support/temp_dir.h"

namespace canopy::probe {
namespace {

using canopy::testing::TempDir;

constexpr uint64_t kBase = 0x7f1234560000;  // where the loader put the object

Elf64_Phdr load(uint64_t offset, uint64_t vaddr, uint64_t size, uint32_t flags) {
  Elf64_Phdr segment{};
  segment.p_type = PT_LOAD;
  segment.p_flags = flags;
  segment.p_offset = offset;
  segment.p_vaddr = vaddr;
  segment.p_paddr = vaddr;
  segment.p_filesz = size;
  segment.p_memsz = size;
  segment.p_align = 0x1000;
  return segment;
}

std::string write_object(const TempDir& dir, const std::vector<Elf64_Phdr>& segments) {
  Elf64_Ehdr header{};
  std::memcpy(header.e_ident, ELFMAG, SELFMAG);
  header.e_ident[EI_CLASS] = ELFCLASS64;
  header.e_ident[EI_DATA] = ELFDATA2LSB;
  header.e_ident[EI_VERSION] = EV_CURRENT;
  header.e_type = ET_DYN;
  header.e_machine = EM_X86_64;
  header.e_version = EV_CURRENT;
  header.e_phoff = sizeof header;
  header.e_ehsize = sizeof header;
  header.e_phentsize = sizeof(Elf64_Phdr);
  header.e_phnum = static_cast<Elf64_Half>(segments.size());
  std::string path = dir.file("object");
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(&header), sizeof header);
  out.write(reinterpret_cast<const char*>(segments.data()),
            static_cast<std::streamsize>(segments.size() * sizeof(Elf64_Phdr)));
  return path;
}

// GNU ld's layout: each segment starts on a page of its own, a page apart in the file
// and in memory alike.
TEST(ElfLoadBias, SegmentsOnPagesOfTheirOwn) {
  TempDir dir;
  std::string path = write_object(dir, {load(0, 0, 0x1f00, PF_R), load(0x2000, 0x2000, 0x5000, PF_R | PF_X)});
  EXPECT_EQ(elf_load_bias(path, kBase + 0x2000, 0x2000), kBase);
}

// lld's layout, as rustc links by default: the code segment starts in the page that ends
// the read-only one, one page further on in memory than in the file. The code's mapping
// is at file offset 0x12000, which both segments hold.
TEST(ElfLoadBias, SegmentsThatShareAPageOfTheFile) {
  TempDir dir;
  std::string path = write_object(dir, {load(0, 0, 0x12fbc, PF_R), load(0x12fc0, 0x13fc0, 0x3e9f0, PF_R | PF_X),
                                        load(0x519b0, 0x539b0, 0x27f0, PF_R | PF_W)});
  EXPECT_EQ(elf_load_bias(path, kBase + 0x13000, 0x12000), kBase);
}

// A program so small that its code segment starts in the file's first page, which both
// segments map: at file offset 0 twice, a page apart.
TEST(ElfLoadBias, TwoSegmentsThatStartInTheSamePage) {
  TempDir dir;
  std::string path = write_object(dir, {load(0, 0, 0xd2c, PF_R), load(0xd30, 0x1d30, 0x960, PF_R | PF_X)});
  EXPECT_EQ(elf_load_bias(path, kBase + 0x1000, 0), kBase);
}

// A mapping that mprotect split starts inside its segment.
TEST(ElfLoadBias, AMappingSplitInsideItsSegment) {
  TempDir dir;
  std::string path = write_object(dir, {load(0, 0, 0x1000, PF_R), load(0x1000, 0x3000, 0x8000, PF_R | PF_X)});
  EXPECT_EQ(elf_load_bias(path, kBase + 0x6000, 0x4000), kBase);
}

TEST(ElfLoadBias, AFileThatIsNoObjectLiesAtItsOffset) {
  TempDir dir;
  std::string path = dir.file("text");
  std::ofstream(path) << "not an object\n";
  EXPECT_EQ(elf_load_bias(path, kBase + 0x2000, 0x2000), kBase);
  EXPECT_EQ(elf_load_bias(dir.file("missing"), kBase + 0x2000, 0x2000), kBase);
}

}  // namespace
}  // namespace canopy::probe
