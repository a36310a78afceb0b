// Damaged recordings (a flipped bit on a disk, in a copy, in a transfer): whatever
// canopy makes of one, it never crashes, it either gives its result or refuses with one
// line naming the file, and no time it prints lies outside the recording.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <random>
#include <regex>

#include "integration/harness.h"
#include "store/sqlite.h"

namespace canopy::testing {
namespace {

using nlohmann::json;

// A recording of the test tree with captured output (so that every table has rows),
// and its span as the undamaged file tells it.
class CorruptTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    good_ = dir_->file("good.canopy");
    auto recorded = run({kCanopy, "record", "-q", "--capture-output", "-o", good_, "sh", "-c",
                         "echo started; '" + kWorkload + "' tree; echo done"});
    ASSERT_EQ(recorded.exit_status, 0) << recorded.err;
    auto report = run({kCanopy, "report", "--json", good_});
    ASSERT_EQ(report.exit_status, 0) << report.err;
    json summary = json::parse(report.out);
    start_ms_ = summary["start_ms"];
    wall_ms_ = summary["wall_ms"];
    std::ifstream in(good_, std::ios::binary);
    bytes_.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  static void TearDownTestSuite() { delete dir_; }

  // Runs canopy with `args` on `path` and checks what every run on a damaged file
  // must hold; returns what it printed when it succeeded.
  static std::optional<Finished> run_on(const std::string& path, std::vector<std::string> args) {
    std::string what = "canopy";
    for (const std::string& arg : args) {
      what += " " + arg;
    }
    what += " " + path;
    args.insert(args.begin(), kCanopy);
    args.push_back(path);
    Finished finished = run(args);
    EXPECT_LT(finished.exit_status, 128) << what << " crashed:\n" << finished.err;
    if (finished.exit_status == 0) {
      return finished;
    }
    EXPECT_EQ(std::count(finished.err.begin(), finished.err.end(), '\n'), 1) << what << ":\n" << finished.err;
    EXPECT_EQ(finished.err.rfind("canopy: ", 0), 0u) << what << ":\n" << finished.err;
    EXPECT_NE(finished.err.find("'" + path + "'"), std::string::npos) << what << ":\n" << finished.err;
    return std::nullopt;
  }

  // report, report --json --html (the viewer's data), export: each must give a
  // result whose times lie in the span, or one line.
  void check_every_reader(const std::string& path) {
    if (auto text = run_on(path, {"report"})) {
      EXPECT_EQ(text->out.find("+-"), std::string::npos) << path << ":\n" << text->out;
      std::smatch offset;
      std::regex at(R"(at \+([0-9.]+) s)");
      for (auto it = std::sregex_iterator(text->out.begin(), text->out.end(), at); it != std::sregex_iterator(); ++it) {
        EXPECT_LE(std::stod((*it)[1]) * 1000, static_cast<double>(wall_ms_) + 1) << path << ":\n" << text->out;
      }
    }
    std::string html = path + ".html";
    if (auto report = run_on(path, {"report", "--json", "--html", html})) {
      json summary = json::parse(report->out);
      std::vector<int64_t> offsets = {summary["peak_tree_t_ms"]};
      for (const json& p : summary["top"]) {
        offsets.push_back(p["peak_t_ms"]);
      }
      for (int64_t offset_ms : offsets) {
        EXPECT_GE(offset_ms, 0) << path << ":\n" << report->out;
        EXPECT_LE(offset_ms, wall_ms_) << path << ":\n" << report->out;
      }
    }
    if (auto csv = run_on(path, {"export", "--format", "csv"})) {
      std::istringstream lines(csv->out);
      std::string line;
      std::getline(lines, line);  // the header
      while (std::getline(lines, line)) {
        int64_t t_ms = std::stoll(line.substr(0, line.find(',')));
        EXPECT_GE(t_ms, start_ms_) << path << ": " << line;
        EXPECT_LE(t_ms, start_ms_ + wall_ms_) << path << ": " << line;
      }
    }
    std::filesystem::remove(html);
  }

  // A copy of the recording with `sql` run on it: one value damaged, as a flipped bit
  // would, but where the test chooses.
  std::string damaged_copy(const std::string& name, const std::string& sql) {
    std::string path = dir_->file(name);
    std::filesystem::copy_file(good_, path, std::filesystem::copy_options::overwrite_existing);
    sqlite3* db = nullptr;
    EXPECT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    store::ScopedDb owned(db);
    auto status = store::exec_sql(db, sql.c_str());
    EXPECT_TRUE(status) << sql << ": " << (status ? "" : status.error().message);
    EXPECT_GE(sqlite3_changes(db), 1) << sql << ": damaged nothing";
    return path;
  }

  static inline TempDir* dir_ = nullptr;
  static inline std::string good_;
  static inline std::string bytes_;
  static inline int64_t start_ms_ = 0;
  static inline int64_t wall_ms_ = 0;
};

TEST_F(CorruptTest, TheUndamagedRecordingPasses) { check_every_reader(good_); }

// One byte flipped at 10 places chosen by a fixed seed, so that a failure repeats: 120
// damaged files over 12 seeds. Each test runs canopy 30 times, which under the
// sanitizers on a loaded machine takes a good part of a test's time limit; more flips
// take more seeds, not more flips a seed.
class FlippedByteTest : public CorruptTest, public ::testing::WithParamInterface<int> {};

TEST_P(FlippedByteTest, AnywhereInTheFile) {
  std::mt19937_64 random(static_cast<uint64_t>(GetParam()));
  for (int i = 0; i < 10; ++i) {
    size_t offset = random() % bytes_.size();
    auto mask = static_cast<char>(1 + random() % 255);
    std::string path = dir_->file("flip-" + std::to_string(offset) + ".canopy");
    std::string damaged = bytes_;
    damaged[offset] ^= mask;
    std::ofstream(path, std::ios::binary) << damaged;
    SCOPED_TRACE("byte " + std::to_string(offset) + " ^ " + std::to_string(static_cast<unsigned char>(mask)));
    check_every_reader(path);
    std::filesystem::remove(path);
  }
}

INSTANTIATE_TEST_SUITE_P(Seeds, FlippedByteTest, ::testing::Range(1, 13));

// Values a flipped bit makes impossible, where SQLite's own checks cannot see them:
// each is refused in one line by every reader that meets it.
TEST_F(CorruptTest, ImpossibleValuesAreRefused) {
  // 188,978,560 s: the offset a damaged recording once reported its peak at.
  const std::string years = "188978560452";
  struct Damage {
    std::string name;
    std::string sql;
    // Who meets it: the summary (report --json) reads the process rows and the ticks,
    // and samples only for what a process row lacks; csv reads no events.
    enum MetBy { kEveryReader, kReadersOfEverySample, kReadersOfEveryEvent } met_by = kEveryReader;
  };
  const std::vector<Damage> damage = {
      {"peak-time", "UPDATE process SET peak_rss_t_ms = peak_rss_t_ms - " + years + " WHERE id = 3"},
      {"tick-time", "UPDATE tick SET t_ms = t_ms - " + years + " WHERE t_ms = (SELECT max(t_ms) FROM tick)"},
      {"sample-time", "UPDATE sample SET t_ms = t_ms + " + years + " WHERE rowid = (SELECT max(rowid) FROM sample)",
       Damage::kReadersOfEverySample},
      {"sample-process", "UPDATE sample SET process_id = 1099511627776 WHERE rowid = (SELECT min(rowid) FROM sample)",
       Damage::kReadersOfEverySample},
      {"sample-value",
       "UPDATE sample SET rss_anon_bytes = -4096 WHERE rowid = "
       "(SELECT max(rowid) FROM sample WHERE rss_anon_bytes IS NOT NULL)",
       Damage::kReadersOfEverySample},
      {"process-id", "UPDATE process SET id = 1099511627776 WHERE id = (SELECT max(id) FROM process)"},
      {"seen-time", "UPDATE process SET first_seen_ms = 0 WHERE id = 2"},
      {"end-time", "UPDATE process SET end_ms = end_ms + " + years + " WHERE id = 2"},
      {"start", "UPDATE meta SET value = '17x' WHERE key = 'start_ms'"},
      {"event-time", "UPDATE event SET t_ms = t_ms - " + years + " WHERE kind = 'stdout'", Damage::kReadersOfEveryEvent},
  };
  const std::regex refused("canopy: cannot (open|read) '.*': the recording is corrupt: [^\n]+\n");
  for (const Damage& d : damage) {
    std::string path = damaged_copy(d.name + ".canopy", d.sql);
    std::vector<std::vector<std::string>> readers = {{"report", "--html", path + ".html"},
                                                     {"export", "--format", "chrome"}};
    if (d.met_by != Damage::kReadersOfEveryEvent) {
      readers.push_back({"export", "--format", "csv"});
    }
    if (d.met_by == Damage::kEveryReader) {
      readers.push_back({"report", "--json"});
    }
    for (std::vector<std::string> args : readers) {
      std::string what = d.name + ": " + args[0] + " " + args[1];
      args.insert(args.begin(), kCanopy);
      args.push_back(path);
      Finished finished = run(args);
      EXPECT_EQ(finished.exit_status, 1) << what << "\n" << finished.out;
      EXPECT_TRUE(std::regex_match(finished.err, refused)) << what << ":\n" << finished.err;
      EXPECT_NE(finished.err.find("'" + path + "'"), std::string::npos) << what << ":\n" << finished.err;
    }
  }
}

}  // namespace
}  // namespace canopy::testing
