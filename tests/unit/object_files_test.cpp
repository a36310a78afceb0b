#include "unwind/object_files.h"

#include <elfutils/libdw.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <utility>
#include <vector>

#include "support/elf_sections.h"
#include "support/temp_dir.h"

namespace canopy::testing {
namespace {

// The entries of an .eh_frame_hdr table, as (function start, FDE address), both in the
// object's own address space; empty unless the table has the encoding linkers write
// (offsets of 4 bytes from the section's start, GCC's unwinder's only one).
std::vector<std::pair<uint64_t, uint64_t>> eh_frame_hdr_entries(const std::string& bytes, uint64_t address) {
  constexpr unsigned char kUdata4 = 0x03;
  constexpr unsigned char kDatarelSdata4 = 0x3b;
  std::vector<std::pair<uint64_t, uint64_t>> entries;
  if (bytes.size() < 12 || bytes[0] != 1 || static_cast<unsigned char>(bytes[2]) != kUdata4 ||
      static_cast<unsigned char>(bytes[3]) != kDatarelSdata4) {
    return entries;
  }
  uint32_t count = 0;
  std::memcpy(&count, bytes.data() + 8, sizeof count);
  for (uint32_t i = 0; i < count && 12 + (i + 1) * 8 <= bytes.size(); ++i) {
    int32_t start = 0;
    int32_t fde = 0;
    std::memcpy(&start, bytes.data() + 12 + i * 8, sizeof start);
    std::memcpy(&fde, bytes.data() + 16 + i * 8, sizeof fde);
    entries.emplace_back(address + start, address + fde);
  }
  return entries;
}

std::string read_range(const std::string& path, uint64_t offset, uint64_t size) {
  std::ifstream file(path, std::ios::binary);
  std::string bytes(size, '\0');
  file.seekg(static_cast<std::streamoff>(offset));
  file.read(bytes.data(), static_cast<std::streamsize>(size));
  return file ? bytes : std::string();
}

// gold (binutils'), which links LLVM's libraries and tools, puts .eh_frame_hdr after
// .eh_frame, and libdw 0.188 then scans .eh_frame from its start for each lookup: 13 to 25
// ms for a frame of libLLVM, in every process's session. Through the unwinder's handle
// it must find the frame by the table. To tell the two ways apart without a clock, the
// copy's first entry in .eh_frame is made unreadable (a length past the section's end):
// a scan stops there, a lookup by the table reads only the entry it wants, the last.
TEST(ObjectFiles, AnObjectWithItsCfiTableAfterItsCfiIsLookedUpByTheTable) {
  const std::string fixture = CANOPY_CPU_WORKLOAD_GOLD_BIN;
  auto eh_frame = elf_section(fixture, ".eh_frame");
  auto table = elf_section(fixture, ".eh_frame_hdr");
  ASSERT_TRUE(eh_frame && table);
  ASSERT_GT(table->index, eh_frame->index) << "gold put .eh_frame_hdr first: not the layout this test is for";
  auto entries = eh_frame_hdr_entries(read_range(fixture, table->offset, table->size), table->address);
  ASSERT_GE(entries.size(), 3u);
  auto by_fde = [](const auto& a, const auto& b) { return a.second < b.second; };
  const auto first = *std::min_element(entries.begin(), entries.end(), by_fde);
  const auto last = *std::max_element(entries.begin(), entries.end(), by_fde);

  TempDir dir;
  const std::string copy = dir.file("workload");
  std::filesystem::copy_file(fixture, copy);
  {
    std::fstream file(copy, std::ios::binary | std::ios::in | std::ios::out);
    const uint32_t past_the_end = 0xfffffff0;
    file.seekp(static_cast<std::streamoff>(first.second - eh_frame->address + eh_frame->offset));
    file.write(reinterpret_cast<const char*>(&past_the_end), sizeof past_the_end);
    ASSERT_TRUE(file.good());
  }

  auto object = unwind::ObjectFile::open(copy, "");
  ASSERT_NE(object, nullptr);
  Elf* elf = object->new_reference();
  Dwarf_CFI* cfi = dwarf_getcfi_elf(elf);
  ASSERT_NE(cfi, nullptr) << dwarf_errmsg(-1);
  Dwarf_Frame* frame = nullptr;
  EXPECT_EQ(dwarf_cfi_addrframe(cfi, last.first, &frame), 0) << dwarf_errmsg(-1);
  if (frame != nullptr) {
    Dwarf_Addr start = 0;
    Dwarf_Addr end = 0;
    dwarf_frame_info(frame, &start, &end, nullptr);
    EXPECT_EQ(start, last.first);
    EXPECT_GT(end, start);
    std::free(frame);
  }
  dwarf_cfi_end(cfi);
  elf_end(elf);
}

}  // namespace
}  // namespace canopy::testing
