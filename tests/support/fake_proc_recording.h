// A TreeSampler reading a fake /proc (fake_proc.h) into a real recording file, and what
// that file holds once finished, for tests that write the tree between two ticks.
#pragma once

#include <gtest/gtest.h>

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "record/tree_sampler.h"
#include "store/reader.h"
#include "support/fake_proc.h"
#include "support/temp_dir.h"

namespace canopy::testing {

// PIDs of the fake tree: above the kernel's largest (PID_MAX_LIMIT, 2^22), so none is
// the test's own, which the sampler leaves out of every tree.
inline constexpr pid_t kRootPid = 5'000'001;
inline constexpr pid_t kChildPid = 5'000'002;
inline constexpr pid_t kSecondPid = 5'000'003;

inline constexpr int64_t kPagesPerMiB = (int64_t{1} << 20) / kFakePageBytes;

inline int64_t rss_bytes(const FakeProcess& p) { return p.resident_pages * kFakePageBytes; }

// What a recording holds, as a reader gives it.
struct FakeProcRecording {
  struct Sample {
    int64_t t_ms;
    store::SampleValues values;  // carried forward from the process's earlier rows
  };
  std::vector<store::ProcessRow> processes;  // by id: process id N is processes[N - 1]
  std::vector<store::TickRow> ticks;
  std::vector<store::EventRow> execs;
  std::vector<std::vector<Sample>> samples;  // by process id, in time order

  const store::ProcessRow& process(int64_t id) const { return processes.at(static_cast<size_t>(id - 1)); }
  // Every row of the process instances that had `pid`, in order of discovery.
  std::vector<store::ProcessRow> rows_of(pid_t pid) const {
    std::vector<store::ProcessRow> rows;
    for (const auto& row : processes) {
      if (row.pid == pid) {
        rows.push_back(row);
      }
    }
    return rows;
  }
  // The row of the only process instance that had `pid`.
  const store::ProcessRow& row_of(pid_t pid) const {
    const store::ProcessRow* found = nullptr;
    for (const auto& row : processes) {
      if (row.pid == pid) {
        if (found) {
          throw std::logic_error("more than one process had pid " + std::to_string(pid));
        }
        found = &row;
      }
    }
    if (!found) {
      throw std::out_of_range("no process had pid " + std::to_string(pid));
    }
    return *found;
  }
  const std::vector<Sample>& samples_of(int64_t id) const { return samples.at(static_cast<size_t>(id)); }
  const store::TickRow& tick_at(int64_t t_ms) const {
    for (const auto& tick : ticks) {
      if (tick.t_ms == t_ms) {
        return tick;
      }
    }
    throw std::out_of_range("no tick at " + std::to_string(t_ms) + " ms");
  }
};

class FakeProcTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto writer = store::Writer::create(path_, false);
    ASSERT_TRUE(writer) << writer.error().message;
    writer_.emplace(std::move(*writer));
  }

  // The sampler, reading the fake tree.
  record::TreeSampler& start(record::SamplerOptions options = {}) {
    options.proc_root = proc_.root();
    return sampler_.emplace(*writer_, FakeProc::host(), std::move(options));
  }

  // Closes the books at `t_ms` and reads back what the file holds.
  FakeProcRecording finish(int64_t t_ms) {
    sampler_->finish(t_ms);
    auto finished = writer_->finish();
    EXPECT_TRUE(finished) << finished.error().message;
    FakeProcRecording recording;
    auto reader = store::Reader::open(path_);
    if (!reader) {
      ADD_FAILURE() << reader.error().message;
      return recording;
    }
    auto processes = reader->processes();
    auto ticks = reader->ticks();
    auto execs = reader->events_of_kind("exec");
    EXPECT_TRUE(processes && ticks && execs);
    if (processes && ticks && execs) {
      recording.processes = *processes;
      recording.ticks = *ticks;
      recording.execs = *execs;
    }
    recording.samples.resize(recording.processes.size() + 1);
    auto read = reader->for_each_sample([&](int64_t t_ms, int64_t id, const store::SampleValues& values) {
      recording.samples.at(static_cast<size_t>(id)).push_back({t_ms, values});
    });
    EXPECT_TRUE(read) << read.error().message;
    return recording;
  }

  TempDir dir_;
  FakeProc proc_;
  std::string path_ = dir_.file("fake.canopy");
  std::optional<store::Writer> writer_;
  std::optional<record::TreeSampler> sampler_;
};

}  // namespace canopy::testing
