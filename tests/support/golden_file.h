// The exporters' golden files (tests/fixtures/export/): `out` must be the file's bytes.
// CANOPY_REGENERATE_GOLDEN=1 writes them anew instead, on purpose, and skips the test.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace canopy::testing {

inline void compare_with_golden(const std::string& golden_path, const std::string& out) {
  const char* regenerate = std::getenv("CANOPY_REGENERATE_GOLDEN");
  if (regenerate && std::string(regenerate) == "1") {
    std::ofstream(golden_path, std::ios::binary) << out;
    GTEST_SKIP() << "regenerated " << golden_path;
  }
  std::ifstream file(golden_path, std::ios::binary);
  ASSERT_TRUE(file) << "no golden file " << golden_path << " (CANOPY_REGENERATE_GOLDEN=1 writes it)";
  std::stringstream golden;
  golden << file.rdbuf();
  EXPECT_EQ(out, golden.str()) << "differs from " << golden_path;
}

}  // namespace canopy::testing
