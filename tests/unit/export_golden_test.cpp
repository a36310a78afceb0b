// Every export format on the fixed fixture recording (support/export_fixture.h),
// compared byte for byte with its golden file in tests/fixtures/export/.
//
// A change to an exporter's output fails here until the golden file is regenerated,
// on purpose, and the diff read:
//   CANOPY_REGENERATE_GOLDEN=1 build/tests/canopy_unit_tests --gtest_filter='ExportGolden.*'
//   git diff tests/fixtures/export/
#include <gtest/gtest.h>


#include "export/chrome_trace.h"
#include "export/csv.h"
#include "export/cutelooker_log.h"
#include "export/jsonl_samples.h"
#include "export/onlooker_json.h"
#include "support/export_fixture.h"
#include "support/golden_file.h"
#include "support/temp_dir.h"

namespace canopy::testing {
namespace {

const std::string kGolden = std::string(CANOPY_FIXTURES) + "/export/";

using Exporter = std::function<Status(const store::Reader&, const std::function<void(std::string_view)>&)>;

class ExportGolden : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string error = write_export_fixture(path_);
    ASSERT_EQ(error, "");
  }

  std::string exported(const Exporter& exporter) {
    auto reader = store::Reader::open(path_);
    EXPECT_TRUE(reader) << reader.error().message;
    std::string out;
    auto status = exporter(*reader, [&](std::string_view bytes) { out.append(bytes); });
    EXPECT_TRUE(status) << status.error().message;
    return out;
  }

  void compare(const std::string& golden_name, const std::string& out) {
    compare_with_golden(kGolden + golden_name, out);
  }

  TempDir dir_;
  std::string path_ = dir_.file("fixture.canopy");
};

TEST_F(ExportGolden, Onlooker) {
  compare("onlooker.json", exported([](const store::Reader& r, const auto& out) {
            return exporters::write_onlooker_json(r, out);
          }));
}

TEST_F(ExportGolden, OnlookerInBatchesIsTheSame) {
  // One process per pass over the samples: the same document, in bounded memory.
  std::string whole = exported([](const store::Reader& r, const auto& out) {
    return exporters::write_onlooker_json(r, out);
  });
  std::string batched = exported([](const store::Reader& r, const auto& out) {
    return exporters::write_onlooker_json(r, out, 1);
  });
  EXPECT_EQ(batched, whole);
}

TEST_F(ExportGolden, CsvWide) {
  compare("wide.csv", exported([](const store::Reader& r, const auto& out) {
            return exporters::write_csv_wide(r, "rss_bytes", out);
          }));
}

TEST_F(ExportGolden, CsvWideCpu) {
  compare("wide_cpu.csv", exported([](const store::Reader& r, const auto& out) {
            return exporters::write_csv_wide(r, "cpu_percent", out);
          }));
}

TEST_F(ExportGolden, CsvLong) { compare("long.csv", exported(exporters::write_csv_long)); }

TEST_F(ExportGolden, Chrome) { compare("chrome.json", exported(exporters::write_chrome_trace)); }

TEST_F(ExportGolden, Jsonl) { compare("samples.jsonl", exported(exporters::write_jsonl_samples)); }

TEST_F(ExportGolden, CutelookerLog) {
  compare("cutelooker_log.json", exported([](const store::Reader& r, const auto& out) {
            return exporters::write_cutelooker_log(r, {}, out);
          }));
}

}  // namespace
}  // namespace canopy::testing
