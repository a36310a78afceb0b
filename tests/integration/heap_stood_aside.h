// For the tests of programs the heap profiler stands aside in (heap_sanitized_test.cpp,
// heap_own_malloc_test.cpp): what a recording of one must hold.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "store/reader.h"

namespace canopy::testing {

// No image of the profiler, and a heap_unprofiled row with `reason` for every process
// of the recording: it stood aside in each, and said why.
inline void expect_every_process_stood_aside(const store::HeapProfile& profile,
                                             const std::vector<store::ProcessRow>& processes,
                                             const std::string& reason) {
  EXPECT_TRUE(profile.images.empty());
  std::set<int64_t> stood_aside;
  for (const store::HeapUnprofiledRow& row : profile.unprofiled) {
    EXPECT_EQ(row.reason, reason) << "pid " << row.pid;
    stood_aside.insert(row.pid);
  }
  for (const store::ProcessRow& process : processes) {
    EXPECT_TRUE(stood_aside.count(process.pid)) << "pid " << process.pid << " (" << process.name << ")";
  }
}

}  // namespace canopy::testing
