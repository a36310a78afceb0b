// The live figures (live/live_figures.h) in Prometheus's text exposition format,
// version 0.0.4: what /metrics answers.
//
// Cardinality is bounded: the top N commands by resident memory get series of their
// own, all others share one group whose label no command can have (kOtherCommands).
// Counters never go down, even as commands move in and out of the top N: a command's
// own counter is its whole CPU (kept by the recorder across exits and execs), and the
// shared group's counter grows by what its members used while they were in it.
//
// With record --heap, each process's heap in use: the top N processes by it get a
// series labelled with their pid and command, the other processes that reported are
// summed in one series whose pid no process can have (kOtherProcessesPid).
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

#include "live/live_figures.h"
#include "web/metrics_feed.h"

namespace canopy::web {

inline constexpr const char* kMetricsContentType = "text/plain; version=0.0.4; charset=utf-8";
inline constexpr int64_t kDefaultMetricsTopCommands = 10;
// The group of the commands outside the top N. 16 bytes, while a command name (the
// kernel's comm) has 15 at most: no command can be called this.
inline constexpr const char* kOtherCommands = "(other commands)";
// The heap series of the processes outside the top N: not a number, so no process's pid.
inline constexpr const char* kOtherProcessesPid = "other";
inline constexpr const char* kOtherProcesses = "(other processes)";

// `text` as a label value: backslash, double quote and newline escaped, invalid UTF-8
// replaced (Prometheus reads label values as UTF-8).
std::string escape_label_value(std::string_view text);
// `text` as a HELP line's docstring: backslash and newline escaped.
std::string escape_help(std::string_view text);

class MetricsExposition {
 public:
  // `top`: how many commands get series of their own, and how many processes get heap
  // series of their own.
  explicit MetricsExposition(int64_t top = kDefaultMetricsTopCommands) : top_(top) {}

  // The exposition of `figures`. Successive calls must see the recorder's figures in
  // their order (render_latest does); the shared group's counters grow from one to the
  // next.
  std::string render(const live::LiveFigures& figures);
  // Of the feed's latest figures, taken under this object's lock so that concurrent
  // scrapes see them in order. Before the first tick: a valid exposition without
  // series but canopy_up 0.
  std::string render_latest(const MetricsFeed& feed);

 private:
  struct Counted {
    int64_t cpu_user_ns = 0;
    int64_t cpu_system_ns = 0;
    int64_t oom_kills = 0;
  };
  std::string render_locked(const live::LiveFigures* figures);

  const int64_t top_;
  std::mutex mutex_;
  // Each command's counters at the previous render, and what the shared group has
  // counted so far.
  std::unordered_map<std::string, Counted> previous_;
  Counted other_;
};

}  // namespace canopy::web
