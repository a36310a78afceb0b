// A progress line on the terminal for work that takes more than a moment: nothing
// for the first second, then "canopy: LABEL: 45% (450 MiB of 1.0 GiB)" redrawn in
// place a few times a second, and erased when done. Silent when stderr is not a
// terminal (CI logs, pipes), where redrawn lines would only be noise.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace canopy::cli {

class ProgressLine {
 public:
  explicit ProgressLine(std::string label);
  ~ProgressLine();
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  // bytes_total <= 0 when unknown.
  void update(int64_t bytes_done, int64_t bytes_total);
  void finish();

 private:
  using Clock = std::chrono::steady_clock;
  std::string label_;
  bool terminal_ = false;
  bool shown_ = false;
  Clock::time_point start_;
  Clock::time_point last_draw_;
};

}  // namespace canopy::cli
