// The symbolizer against a library built for it (fixtures/symbolize/): names, files,
// lines and inlined frames read back from the file on disk, as canopy reads them after
// the process exited; and each way a module can fail to give names.
#include "symbolize/symbolizer.h"

#include <dlfcn.h>
#include <elf.h>
#include <gtest/gtest.h>
#include <link.h>

#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "common/vdso_image.h"
#include "support/temp_dir.h"
#include "symbolize/build_id.h"
#include "symbolize/heap_stack_names.h"

namespace canopy::symbolize {
namespace {

using canopy::testing::TempDir;

const std::string kFixtureSource = std::string(CANOPY_FIXTURES) + "/symbolize/symbolize_fixture.cpp";
const std::string kFixtureFunction = "canopy_fixture::outer_function(int)";
// A static function: GCC writes no linkage name, so no parameter types either.
const std::string kInlinedFunction = "canopy_fixture::inlined_step";

// The 1-based line of the fixture's source that holds `marker`; 0 when none does.
int marker_line(const std::string& marker) {
  std::ifstream source(kFixtureSource);
  std::string text;
  for (int line = 1; std::getline(source, text); ++line) {
    if (text.find(marker) != std::string::npos) {
      return line;
    }
  }
  return 0;
}

// What the heap profiler records of the object that holds an address: its path and
// load bias (dl_iterate_phdr), and its build-id from the note the loader mapped, read
// here without libelf so that read_build_id_hex is checked against other code.
struct LoadedObject {
  std::string path;
  uint64_t bias = 0;
  std::string build_id_hex;
};

std::string loaded_build_id_hex(const dl_phdr_info& info) {
  for (int i = 0; i < info.dlpi_phnum; ++i) {
    const ElfW(Phdr)& segment = info.dlpi_phdr[i];
    if (segment.p_type != PT_NOTE) {
      continue;
    }
    // Names and descriptions are padded to the segment's alignment: 4, or 8 for notes
    // such as .note.gnu.property.
    const size_t align = segment.p_align == 8 ? 8 : 4;
    auto pad = [align](size_t n) { return (n + align - 1) & ~(align - 1); };
    const auto* note = reinterpret_cast<const char*>(info.dlpi_addr + segment.p_vaddr);
    const char* end = note + segment.p_memsz;
    while (note + sizeof(ElfW(Nhdr)) <= end) {
      const auto* header = reinterpret_cast<const ElfW(Nhdr)*>(note);
      const char* name = note + sizeof(ElfW(Nhdr));
      const auto* desc = reinterpret_cast<const unsigned char*>(name + pad(header->n_namesz));
      if (header->n_type == NT_GNU_BUILD_ID && header->n_namesz == 4 && std::string(name, 3) == "GNU") {
        std::string hex;
        for (size_t j = 0; j < header->n_descsz; ++j) {
          char digits[3];
          std::snprintf(digits, sizeof digits, "%02x", desc[j]);
          hex += digits;
        }
        return hex;
      }
      note = reinterpret_cast<const char*>(desc) + pad(header->n_descsz);
    }
  }
  return "";
}

std::optional<LoadedObject> loaded_object_of(const void* address) {
  struct Search {
    uint64_t address;
    std::optional<LoadedObject> found;
  } search{reinterpret_cast<uint64_t>(address), std::nullopt};
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) {
        auto* search = static_cast<Search*>(data);
        for (int i = 0; i < info->dlpi_phnum; ++i) {
          const ElfW(Phdr)& segment = info->dlpi_phdr[i];
          uint64_t start = info->dlpi_addr + segment.p_vaddr;
          if (segment.p_type == PT_LOAD && search->address >= start && search->address < start + segment.p_memsz) {
            search->found = LoadedObject{info->dlpi_name, info->dlpi_addr, loaded_build_id_hex(*info)};
            return 1;
          }
        }
        return 0;
      },
      &search);
  return search.found;
}

// One build of the fixture library, dlopened for the test suite.
class LoadedFixture {
 public:
  explicit LoadedFixture(const char* path) : handle_(dlopen(path, RTLD_NOW | RTLD_LOCAL)) {
    if (handle_ == nullptr) {
      error_ = dlerror();
    }
  }
  ~LoadedFixture() {
    if (handle_ != nullptr) {
      dlclose(handle_);
    }
  }
  LoadedFixture(const LoadedFixture&) = delete;
  LoadedFixture& operator=(const LoadedFixture&) = delete;

  bool loaded() const { return handle_ != nullptr; }
  const std::string& error() const { return error_; }
  void* symbol(const char* name) const { return dlsym(handle_, name); }
  // A return address inside outer_function, in the code inlined from inlined_step.
  void* return_address_in_outer_function() const {
    reinterpret_cast<int (*)(int)>(symbol("canopy_fixture_call"))(20);
    return reinterpret_cast<void* (*)()>(symbol("canopy_fixture_return_address"))();
  }

 private:
  void* handle_;
  std::string error_;  // dlopen's, when it failed
};

class SymbolizerTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    // Where a library has no DWARF, libdwfl asks a debuginfod server if this names one:
    // a test reaches no network.
    ::unsetenv("DEBUGINFOD_URLS");
    with_dwarf_ = std::make_unique<LoadedFixture>(CANOPY_SYMBOLIZE_FIXTURE);
    without_dwarf_ = std::make_unique<LoadedFixture>(CANOPY_SYMBOLIZE_FIXTURE_NODEBUG);
    with_lto_ = std::make_unique<LoadedFixture>(CANOPY_SYMBOLIZE_FIXTURE_LTO);
  }
  static void TearDownTestSuite() {
    with_dwarf_.reset();
    without_dwarf_.reset();
    with_lto_.reset();
  }
  void SetUp() override {
    for (const LoadedFixture* fixture : {with_dwarf_.get(), without_dwarf_.get(), with_lto_.get()}) {
      ASSERT_TRUE(fixture->loaded()) << fixture->error();
    }
  }

  // The module and file address of an address in a loaded fixture.
  static std::pair<ModuleRef, uint64_t> locate(const void* address) {
    std::optional<LoadedObject> object = loaded_object_of(address);
    EXPECT_TRUE(object.has_value());
    if (!object) {
      return {};
    }
    return {ModuleRef{object->path, object->build_id_hex}, reinterpret_cast<uint64_t>(address) - object->bias};
  }

  static inline std::unique_ptr<LoadedFixture> with_dwarf_;
  static inline std::unique_ptr<LoadedFixture> without_dwarf_;
  static inline std::unique_ptr<LoadedFixture> with_lto_;  // inlined instances point into another unit
};

TEST_F(SymbolizerTest, ReturnAddressGivesTheInlinedChainAndItsCallLines) {
  for (const LoadedFixture* fixture : {with_dwarf_.get(), with_lto_.get()}) {
    auto [module, rel_pc] = locate(fixture->return_address_in_outer_function());
    SCOPED_TRACE(module.path);
    ASSERT_FALSE(module.build_id_hex.empty());

    Symbolizer symbolizer;
    EXPECT_EQ(symbolizer.module_state(module), ModuleState::kResolved);
    std::vector<SourceFrame> frames = symbolizer.resolve(module, rel_pc, true);
    ASSERT_EQ(frames.size(), 2u);
    // The call inside the inlined function, at the address itself...
    EXPECT_EQ(frames[0].function, kInlinedFunction);
    EXPECT_TRUE(frames[0].file.ends_with("/symbolize_fixture.cpp")) << frames[0].file;
    EXPECT_EQ(frames[0].line, marker_line("// LINE_MARKER_INLINED_CALL"));
    EXPECT_TRUE(frames[0].inlined);
    // ...then the function it was inlined into, at the inlined call.
    EXPECT_EQ(frames[1].function, kFixtureFunction);
    EXPECT_EQ(frames[1].line, marker_line("// LINE_MARKER_OUTER_CALL"));
    EXPECT_FALSE(frames[1].inlined);
    // The line table and the call site name the file alike, though the compiler was
    // given a relative path (ccache gives one).
    EXPECT_EQ(frames[1].file, frames[0].file);
  }
}

TEST_F(SymbolizerTest, FunctionEntryNamesTheFunction) {
  void* entry = with_dwarf_->symbol("_ZN14canopy_fixture14outer_functionEi");
  ASSERT_NE(entry, nullptr);
  auto [module, rel_pc] = locate(entry);
  Symbolizer symbolizer;
  // Not a return address: the entry itself, before any inlined code.
  std::vector<SourceFrame> frames = symbolizer.resolve(module, rel_pc, false);
  ASSERT_EQ(frames.size(), 1u);
  EXPECT_EQ(frames[0].function, kFixtureFunction);
  EXPECT_FALSE(frames[0].inlined);
  EXPECT_TRUE(frames[0].file.ends_with("/symbolize_fixture.cpp")) << frames[0].file;
  // The prologue is the line that opens the function.
  EXPECT_EQ(frames[0].line, marker_line("// LINE_MARKER_OUTER_ENTRY"));
}

TEST_F(SymbolizerTest, SymbolTableNamesTheFunctionWithoutDwarf) {
  auto [module, rel_pc] = locate(without_dwarf_->return_address_in_outer_function());
  ASSERT_EQ(module.path, CANOPY_SYMBOLIZE_FIXTURE_NODEBUG);
  Symbolizer symbolizer;
  EXPECT_EQ(symbolizer.module_state(module), ModuleState::kResolved);
  std::vector<SourceFrame> frames = symbolizer.resolve(module, rel_pc, true);
  ASSERT_EQ(frames.size(), 1u);  // what was inlined is not in the symbol table
  EXPECT_EQ(frames[0].function, kFixtureFunction);
  EXPECT_EQ(frames[0].file, "");
  EXPECT_EQ(frames[0].line, 0);
  EXPECT_FALSE(frames[0].inlined);
}

// Stacks whose frames all read alike stand for one another. In a library without DWARF
// the symbol table names the function alone, so two return addresses in it read alike;
// with DWARF their lines tell them apart.
TEST_F(SymbolizerTest, StacksThatReadAlikeFrameForFrameStandForOneAnother) {
  const char* outer = "_ZN14canopy_fixture14outer_functionEi";
  auto [plain, plain_return] = locate(without_dwarf_->return_address_in_outer_function());
  auto [plain_too, plain_entry] = locate(without_dwarf_->symbol(outer));
  auto [debug, debug_return] = locate(with_dwarf_->return_address_in_outer_function());
  auto [debug_too, debug_entry] = locate(with_dwarf_->symbol(outer));
  store::HeapProfile profile;
  profile.modules = {{1, plain.path, plain.build_id_hex}, {2, debug.path, debug.build_id_hex}};
  // As return addresses: one past the entry names the entry's code.
  profile.frames = {{10, 1, static_cast<int64_t>(plain_return)},
                    {11, 1, static_cast<int64_t>(plain_entry + 1)},
                    {20, 2, static_cast<int64_t>(debug_return)},
                    {21, 2, static_cast<int64_t>(debug_entry + 1)}};
  profile.stacks = {{100, {10}}, {101, {11}}, {102, {10, 11}}, {103, {20}}, {104, {21}}, {105, {11, 11}}};
  HeapStackNames names(profile);
  ASSERT_EQ(names.frames(100, 8).front().function, kFixtureFunction);
  ASSERT_EQ(names.frames(101, 8).front().function, kFixtureFunction);
  std::unordered_map<int64_t, int64_t> aliases = names.stacks_that_read_alike();
  EXPECT_EQ(aliases, (std::unordered_map<int64_t, int64_t>{{101, 100}, {105, 102}}));
}

// The frames of the fixture's return address in `copy`, a copy of the fixture built with
// DWARF: those the fixture itself gives.
void expect_the_same_frames(const ModuleRef& fixture, uint64_t rel_pc, const std::string& copy) {
  Symbolizer symbolizer;
  std::vector<SourceFrame> expected = symbolizer.resolve(fixture, rel_pc, true);
  // The same build: the same build-id, the same addresses.
  ModuleRef copied{copy, fixture.build_id_hex};
  ASSERT_EQ(symbolizer.module_state(copied), ModuleState::kResolved);
  std::vector<SourceFrame> frames = symbolizer.resolve(copied, rel_pc, true);
  ASSERT_EQ(frames.size(), 2u);
  ASSERT_EQ(expected.size(), 2u);
  for (size_t i = 0; i < frames.size(); ++i) {
    EXPECT_EQ(frames[i].function, expected[i].function);
    EXPECT_EQ(frames[i].file, expected[i].file);
    EXPECT_EQ(frames[i].line, expected[i].line);
    EXPECT_EQ(frames[i].inlined, expected[i].inlined);
  }
  EXPECT_EQ(frames[0].line, marker_line("// LINE_MARKER_INLINED_CALL"));
}

// Stripped of its DWARF, which a file beside it holds.
TEST_F(SymbolizerTest, SeparateDebugInfoGivesTheSameFrames) {
  auto [module, rel_pc] = locate(with_dwarf_->return_address_in_outer_function());
  expect_the_same_frames(module, rel_pc, CANOPY_SYMBOLIZE_FIXTURE_SPLIT);
}

// Without .debug_aranges, the table of which unit holds which code: clang and rustc
// write none by default.
TEST_F(SymbolizerTest, DwarfWithoutAddressRangesGivesTheSameFrames) {
  auto [module, rel_pc] = locate(with_dwarf_->return_address_in_outer_function());
  expect_the_same_frames(module, rel_pc, CANOPY_SYMBOLIZE_FIXTURE_NO_ARANGES);
}

TEST_F(SymbolizerTest, AnotherBuildGivesNoNames) {
  auto [module, rel_pc] = locate(with_dwarf_->return_address_in_outer_function());
  Symbolizer symbolizer;
  ModuleRef rebuilt{module.path, "00112233445566778899aabbccddeeff00112233"};
  EXPECT_EQ(symbolizer.module_state(rebuilt), ModuleState::kBuildIdMismatch);
  EXPECT_TRUE(symbolizer.resolve(rebuilt, rel_pc, true).empty());
  // Recorded without a build-id, but the file has one: not the same file either.
  ModuleRef unnamed{module.path, ""};
  EXPECT_EQ(symbolizer.module_state(unnamed), ModuleState::kBuildIdMismatch);
  EXPECT_TRUE(symbolizer.resolve(unnamed, rel_pc, true).empty());
  // The recorded one, in capitals, is the same build.
  std::string upper = module.build_id_hex;
  for (char& c : upper) {
    c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  }
  EXPECT_EQ(symbolizer.module_state(ModuleRef{module.path, upper}), ModuleState::kResolved);
}

// "[vdso]" has no file: the symbolizer reads this process's vDSO, which is the recorded
// one only when the build-id the recorder took from its own vDSO agrees.
TEST_F(SymbolizerTest, TheVdsoIsThisProcesssOwnWhenTheBuildIdsAgree) {
  if (vdso_image().empty()) {
    GTEST_SKIP() << "this process has no 64-bit vDSO";
  }
  const std::string build_id = probe::elf_build_id_hex(std::string(kVdsoMapName));
  ASSERT_FALSE(build_id.empty()) << "the kernel's vDSO has a build-id";
  Symbolizer symbolizer;
  EXPECT_EQ(symbolizer.module_state(ModuleRef{std::string(kVdsoMapName), build_id}), ModuleState::kResolved);
  // Another kernel's, or one recorded before canopy took its build-id.
  EXPECT_EQ(symbolizer.module_state(ModuleRef{std::string(kVdsoMapName), "00112233"}), ModuleState::kBuildIdMismatch);
  EXPECT_EQ(symbolizer.module_state(ModuleRef{std::string(kVdsoMapName), ""}), ModuleState::kBuildIdMismatch);
}

TEST_F(SymbolizerTest, AFrameNoSymbolCoversIsItsObjectAndItsAddressThere) {
  // The ELF header of a file that was read: no function covers it, as none covers a
  // stripped program's own code.
  auto [module, address] = locate(without_dwarf_->symbol("canopy_fixture_call"));
  ASSERT_FALSE(module.path.empty());
  store::HeapProfile profile;
  profile.modules.push_back({1, module.path, module.build_id_hex});
  profile.frames.push_back({1, 1, 0x10});
  HeapStackNames names(profile);
  const std::vector<NamedFrame>& named = names.names_of(1);
  ASSERT_EQ(named.size(), 1u);
  EXPECT_EQ(named[0].function, "?");
  EXPECT_EQ(named[0].location, std::filesystem::path(module.path).filename().string());
  EXPECT_EQ(named[0].address_in_object, "0x10");
  EXPECT_EQ(display_name(named[0]), "? (" + named[0].location + ")");
}

TEST_F(SymbolizerTest, MissingFileGivesNoNames) {
  Symbolizer symbolizer;
  ModuleRef missing{"/nonexistent/canopy/libgone.so", "00112233"};
  EXPECT_EQ(symbolizer.module_state(missing), ModuleState::kMissing);
  EXPECT_TRUE(symbolizer.resolve(missing, 0x1000, true).empty());
}

TEST_F(SymbolizerTest, TextFileIsNotElf) {
  Symbolizer symbolizer;
  ModuleRef text{kFixtureSource, ""};
  EXPECT_EQ(symbolizer.module_state(text), ModuleState::kNotElf);
  EXPECT_TRUE(symbolizer.resolve(text, 0x10, false).empty());
  ModuleRef directory{CANOPY_FIXTURES, ""};
  EXPECT_EQ(symbolizer.module_state(directory), ModuleState::kNotElf);
}

TEST_F(SymbolizerTest, TruncatedCopiesGiveNoNames) {
  auto [module, rel_pc] = locate(with_dwarf_->return_address_in_outer_function());
  const auto size_bytes = static_cast<int64_t>(std::filesystem::file_size(module.path));
  TempDir dir;
  Symbolizer symbolizer;
  for (int64_t cut_bytes : {int64_t{0}, int64_t{16}, int64_t{64}, size_bytes / 4, size_bytes / 2, size_bytes - 1}) {
    SCOPED_TRACE("cut at " + std::to_string(cut_bytes) + " of " + std::to_string(size_bytes) + " bytes");
    std::string copy = dir.file("cut_" + std::to_string(cut_bytes) + ".so");
    std::filesystem::copy_file(module.path, copy);
    std::filesystem::resize_file(copy, static_cast<uintmax_t>(cut_bytes));
    ModuleRef truncated{copy, module.build_id_hex};
    EXPECT_EQ(symbolizer.module_state(truncated), ModuleState::kNotElf);
    EXPECT_TRUE(symbolizer.resolve(truncated, rel_pc, true).empty());
  }
}

// A copy of the file at `path` whose sections named .debug_* hold `fill` instead of DWARF.
std::string with_garbage_dwarf(const std::string& path, const std::string& copy, uint8_t fill) {
  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  Elf64_Ehdr header;
  std::memcpy(&header, bytes.data(), sizeof header);
  auto section = [&](size_t i) {
    Elf64_Shdr section_header;
    std::memcpy(&section_header, bytes.data() + header.e_shoff + i * header.e_shentsize, sizeof section_header);
    return section_header;
  };
  const Elf64_Shdr names = section(header.e_shstrndx);
  for (size_t i = 1; i < header.e_shnum; ++i) {
    Elf64_Shdr section_header = section(i);
    if (std::string(bytes.data() + names.sh_offset + section_header.sh_name).starts_with(".debug_")) {
      std::memset(bytes.data() + section_header.sh_offset, fill, section_header.sh_size);
    }
  }
  std::ofstream(copy, std::ios::binary) << bytes;
  return copy;
}

TEST_F(SymbolizerTest, GarbageDwarfFallsBackToTheSymbolTable) {
  auto [module, rel_pc] = locate(with_dwarf_->return_address_in_outer_function());
  TempDir dir;
  Symbolizer symbolizer;
  for (uint8_t fill : {0x00, 0x7f, 0xff}) {
    SCOPED_TRACE("fill " + std::to_string(fill));
    ModuleRef garbage{with_garbage_dwarf(module.path, dir.file("garbage_" + std::to_string(fill) + ".so"), fill),
                      module.build_id_hex};
    // The note is intact, so the file passes for the build that was loaded; libdw finds
    // no unit in the garbage, and the symbol table still names the function.
    EXPECT_EQ(symbolizer.module_state(garbage), ModuleState::kResolved);
    std::vector<SourceFrame> frames = symbolizer.resolve(garbage, rel_pc, true);
    ASSERT_EQ(frames.size(), 1u);
    EXPECT_EQ(frames[0].function, kFixtureFunction);
    EXPECT_EQ(frames[0].file, "");
    EXPECT_EQ(frames[0].line, 0);
  }
}

TEST_F(SymbolizerTest, ModuleIsOpenedOnce) {
  auto [module, rel_pc] = locate(with_dwarf_->return_address_in_outer_function());
  TempDir dir;
  ModuleRef copy{dir.file("copy.so"), module.build_id_hex};
  std::filesystem::copy_file(module.path, copy.path);
  Symbolizer symbolizer;
  ASSERT_EQ(symbolizer.resolve(copy, rel_pc, true).size(), 2u);
  // The first lookup opened the file; later ones read what it holds open.
  std::filesystem::remove(copy.path);
  std::vector<SourceFrame> frames = symbolizer.resolve(copy, rel_pc, true);
  ASSERT_EQ(frames.size(), 2u);
  EXPECT_EQ(frames[1].function, kFixtureFunction);
  EXPECT_EQ(symbolizer.module_state(copy), ModuleState::kResolved);
  // A Symbolizer that had not opened it finds nothing.
  EXPECT_EQ(Symbolizer().module_state(copy), ModuleState::kMissing);
}

TEST_F(SymbolizerTest, BuildIdIsTheLoadedNote) {
  const std::pair<const char*, const LoadedFixture*> builds[] = {
      {CANOPY_SYMBOLIZE_FIXTURE, with_dwarf_.get()}, {CANOPY_SYMBOLIZE_FIXTURE_NODEBUG, without_dwarf_.get()}};
  for (const auto& [path, fixture] : builds) {
    SCOPED_TRACE(path);
    std::optional<LoadedObject> object = loaded_object_of(fixture->symbol("canopy_fixture_call"));
    ASSERT_TRUE(object.has_value());
    // GNU ld's default, --build-id=sha1: 20 bytes.
    EXPECT_EQ(object->build_id_hex.size(), 40u);
    Result<std::string> read = read_build_id_hex(path);
    ASSERT_TRUE(read.ok()) << read.error().message;
    EXPECT_EQ(*read, object->build_id_hex);
  }
  // The two builds differ in their DWARF, hence in their build-ids.
  EXPECT_NE(*read_build_id_hex(CANOPY_SYMBOLIZE_FIXTURE), *read_build_id_hex(CANOPY_SYMBOLIZE_FIXTURE_NODEBUG));
}

TEST_F(SymbolizerTest, BuildIdErrorsNameTheFile) {
  Result<std::string> missing = read_build_id_hex("/nonexistent/canopy/libgone.so");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().message, "cannot read '/nonexistent/canopy/libgone.so': No such file or directory");
  Result<std::string> text = read_build_id_hex(kFixtureSource);
  ASSERT_FALSE(text.ok());
  EXPECT_EQ(text.error().message, "cannot read '" + kFixtureSource + "': not an ELF object");
}

}  // namespace
}  // namespace canopy::symbolize
