// A suite whose tests all read one recording of `canopy_workload tree` (three holders
// of known sizes and an orphaned daemon: run_tree in canopy_workload.cpp), made once
// for the suite.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "integration/harness.h"

namespace canopy::testing {

class RecordedTreeTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    recording_ = dir_->file("tree.canopy");
    auto recorded = run({kCanopy, "record", "-q", "-o", recording_, kWorkload, "tree"});
    ASSERT_EQ(recorded.exit_status, 0) << recorded.err;
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }

  static inline TempDir* dir_ = nullptr;
  static inline std::string recording_;
};

}  // namespace canopy::testing
