// An object whose file is gone, or was replaced by another build, is named from the
// build the recording names: fetched by its build-id from a debuginfod server, here
// one on loopback that serves the symbolizer's fixture (fixtures/symbolize/).
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "probe/elf_load_bias.h"
#include "symbolize/symbolizer.h"
#include "support/temp_dir.h"

namespace canopy::symbolize {
namespace {

using canopy::testing::TempDir;

const std::string kFixtureFunction = "canopy_fixture::outer_function(int)";

std::string file_bytes(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << file.rdbuf();
  return bytes.str();
}

// A debuginfod server that has one object: GET /buildid/HEX/debuginfo.
class FakeDebuginfod {
 public:
  FakeDebuginfod(const std::string& build_id_hex, std::string object) : object_(std::move(object)) {
    server_.Get("/buildid/" + build_id_hex + "/debuginfo", [this](const httplib::Request&, httplib::Response& res) {
      ++served_;
      res.set_content(object_, "application/octet-stream");
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    // stop() before the loop runs would be lost, and join() would wait forever.
    while (!server_.is_running()) {
      std::this_thread::yield();
    }
  }
  ~FakeDebuginfod() {
    server_.stop();
    thread_.join();
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  int served() const { return served_; }

 private:
  std::string object_;
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
  std::atomic<int> served_{0};
};

// DEBUGINFOD_URLS and the client's cache for one test, unset after it.
class DebuginfodEnvironment {
 public:
  DebuginfodEnvironment(const std::string& urls, const std::string& cache) {
    ::setenv("DEBUGINFOD_URLS", urls.c_str(), 1);
    ::setenv("DEBUGINFOD_CACHE_PATH", cache.c_str(), 1);
  }
  ~DebuginfodEnvironment() {
    ::unsetenv("DEBUGINFOD_URLS");
    ::unsetenv("DEBUGINFOD_CACHE_PATH");
  }
};

class SymbolizerByBuildIdTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ::unsetenv("DEBUGINFOD_URLS");
    handle_ = dlopen(CANOPY_SYMBOLIZE_FIXTURE, RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(handle_, nullptr) << dlerror();
    Dl_info info{};
    void* entry = dlsym(handle_, "_ZN14canopy_fixture14outer_functionEi");
    ASSERT_TRUE(entry != nullptr && dladdr(entry, &info) != 0);
    // A shared object's first segment is at address 0: its load address is its bias.
    entry_rel_pc_ = reinterpret_cast<uint64_t>(entry) - reinterpret_cast<uint64_t>(info.dli_fbase);
    build_id_ = probe::elf_build_id_hex(CANOPY_SYMBOLIZE_FIXTURE);
    ASSERT_FALSE(build_id_.empty());
  }
  void TearDown() override {
    if (handle_ != nullptr) {
      dlclose(handle_);
    }
  }

  // `module` named as the fixture, from a server that has the fixture's build; how many
  // times the server was asked.
  int expect_named_from_a_server(const ModuleRef& module) {
    FakeDebuginfod server(build_id_, file_bytes(CANOPY_SYMBOLIZE_FIXTURE));
    DebuginfodEnvironment environment(server.url(), dir_.file("cache"));
    Symbolizer symbolizer;
    EXPECT_EQ(symbolizer.module_state(module), ModuleState::kResolved);
    std::vector<SourceFrame> frames = symbolizer.resolve(module, entry_rel_pc_, false);
    EXPECT_FALSE(frames.empty());
    if (!frames.empty()) {
      EXPECT_EQ(frames[0].function, kFixtureFunction);
      EXPECT_TRUE(frames[0].file.ends_with("/symbolize_fixture.cpp")) << frames[0].file;
    }
    return server.served();
  }

  void* handle_ = nullptr;
  uint64_t entry_rel_pc_ = 0;
  std::string build_id_;
  TempDir dir_;
};

TEST_F(SymbolizerByBuildIdTest, AGoneObjectIsFetchedByItsBuildId) {
  ModuleRef gone{dir_.file("deleted/libfixture.so"), build_id_};
  {
    Symbolizer symbolizer;  // no server named: nothing to ask
    EXPECT_EQ(symbolizer.module_state(gone), ModuleState::kMissing);
  }
  EXPECT_EQ(expect_named_from_a_server(gone), 1);  // once, for the module's lookups
}

TEST_F(SymbolizerByBuildIdTest, AReplacedObjectIsFetchedByTheRecordedBuildId) {
  // The path now holds another build: the one without DWARF, whose build-id differs.
  ModuleRef replaced{CANOPY_SYMBOLIZE_FIXTURE_NODEBUG, build_id_};
  ASSERT_NE(probe::elf_build_id_hex(CANOPY_SYMBOLIZE_FIXTURE_NODEBUG), build_id_);
  EXPECT_EQ(expect_named_from_a_server(replaced), 1);
}

TEST_F(SymbolizerByBuildIdTest, AServerWithoutTheBuildLeavesItMissing) {
  ModuleRef gone{dir_.file("deleted/libfixture.so"), build_id_};
  FakeDebuginfod server("00112233445566778899aabbccddeeff00112233", file_bytes(CANOPY_SYMBOLIZE_FIXTURE));
  DebuginfodEnvironment environment(server.url(), dir_.file("cache"));
  Symbolizer symbolizer;
  EXPECT_EQ(symbolizer.module_state(gone), ModuleState::kMissing);
  EXPECT_TRUE(symbolizer.resolve(gone, entry_rel_pc_, false).empty());
}

TEST_F(SymbolizerByBuildIdTest, AnObjectTheServerSendsForAnotherBuildIsNotTaken) {
  // A server that answers with the wrong file: the build-id check still decides.
  ModuleRef gone{dir_.file("deleted/libfixture.so"), build_id_};
  FakeDebuginfod server(build_id_, file_bytes(CANOPY_SYMBOLIZE_FIXTURE_NODEBUG));
  DebuginfodEnvironment environment(server.url(), dir_.file("cache"));
  Symbolizer symbolizer;
  EXPECT_EQ(symbolizer.module_state(gone), ModuleState::kMissing);
}

}  // namespace
}  // namespace canopy::symbolize
