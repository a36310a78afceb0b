#include "analyze/growth.h"

#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <unordered_map>
#include <utility>

namespace canopy::analyze {
namespace {

// A process's life is cut into at most this many equal buckets, each holding its
// memory and CPU at the bucket's end: the fit's points, whatever the recording's length.
constexpr int64_t kMaxPoints = 240;
// Start-up (loading libraries, building first state) is not growth: the trend is
// judged from the end of the first tenth of the life on.
constexpr int64_t kStartupShareInverse = 10;
// A rise worth a line: at least 8 MiB, and at least a tenth of where it started.
constexpr int64_t kSignificantBytes = 8 << 20;
constexpr double kSignificantShare = 0.10;
constexpr double kSteadyFit = 0.8;        // R² of a line through the growing part's points
constexpr int64_t kMinFitPoints = 5;      // fewer is a jump, not a trend
constexpr double kRetreatShare = 0.05;    // falls smaller than this share of the rise are noise
constexpr double kReturnedShare = 0.25;   // back within this share of the rise: it returned
constexpr double kIdleCoreShare = 0.01;   // under 1% of one core is idle

struct ProcessSeries {
  const store::ProcessRow* process = nullptr;
  GrowthFinding::Ending ending = GrowthFinding::Ending::kRunning;
  int64_t begin_ms = 0;
  int64_t span_ms = 0;  // from begin_ms to where it is judged up to
  int64_t ticks = 0;
  std::optional<int64_t> end_ms;  // the process's
  std::vector<int64_t> rss_bytes;  // at each bucket's end; -1 until a row lands in it
  std::vector<int64_t> cpu_ns;
  // Whether the recorder ticked in the bucket. Rows are written on change: a bucket
  // with no row of the process is idle when a tick looked and found nothing new, but
  // says nothing when the recorder missed it (starved on a loaded machine).
  std::vector<bool> observed;
};

struct Fit {
  double slope_per_ms = 0;
  double r_squared = 0;
};

Fit least_squares(const std::vector<double>& x, const std::vector<double>& y) {
  const auto n = static_cast<double>(x.size());
  double mean_x = 0;
  double mean_y = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    mean_x += x[i] / n;
    mean_y += y[i] / n;
  }
  double sxy = 0;
  double sxx = 0;
  double syy = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    sxy += (x[i] - mean_x) * (y[i] - mean_y);
    sxx += (x[i] - mean_x) * (x[i] - mean_x);
    syy += (y[i] - mean_y) * (y[i] - mean_y);
  }
  Fit fit;
  if (sxx > 0) {
    fit.slope_per_ms = sxy / sxx;
  }
  // The share of the variance the line explains; a flat series is a perfect (flat) line.
  fit.r_squared = syy > 0 && sxx > 0 ? (sxy * sxy) / (sxx * syy) : 1.0;
  return fit;
}

// Buckets no row landed in hold the value before them (rows are written on change).
void carry_forward(std::vector<int64_t>& values) {
  int64_t last = 0;
  for (auto& value : values) {
    value = value < 0 ? last : value;
    last = value;
  }
}

std::optional<GrowthFinding> judge(const ProcessSeries& s) {
  const auto points = static_cast<int64_t>(s.rss_bytes.size());
  const int64_t first = points / kStartupShareInverse;
  const double bucket_ms = static_cast<double>(s.span_ms) / static_cast<double>(points);
  GrowthFinding f;
  f.ending = s.ending;
  f.process_id = s.process->id;
  f.pid = s.process->pid;
  f.name = s.process->name;
  f.span_ms = s.span_ms;
  f.ticks = s.ticks;
  f.start_bytes = s.rss_bytes[static_cast<size_t>(first)];
  f.end_bytes = s.rss_bytes.back();
  f.max_bytes = *std::max_element(s.rss_bytes.begin() + first, s.rss_bytes.end());
  const int64_t rise = f.max_bytes - f.start_bytes;
  if (rise < kSignificantBytes || static_cast<double>(rise) < kSignificantShare * static_cast<double>(f.start_bytes)) {
    return std::nullopt;
  }

  int64_t highest = 0;
  int64_t deepest_fall = 0;
  for (int64_t i = first; i < points; ++i) {
    highest = std::max(highest, s.rss_bytes[static_cast<size_t>(i)]);
    deepest_fall = std::max(deepest_fall, highest - s.rss_bytes[static_cast<size_t>(i)]);
  }
  f.monotonic = static_cast<double>(deepest_fall) <= kRetreatShare * static_cast<double>(rise);

  // The trend is the growing part's: up to where it first came within 1% of its
  // highest. A leak that stopped (the process went idle) still grew at its own rate.
  const auto near_max = static_cast<int64_t>(static_cast<double>(f.max_bytes) - 0.01 * static_cast<double>(rise));
  int64_t reached = first;
  while (s.rss_bytes[static_cast<size_t>(reached)] < near_max) {
    ++reached;
  }
  std::vector<double> x;
  std::vector<double> y;
  for (int64_t i = first; i <= reached; ++i) {
    x.push_back(static_cast<double>(i + 1) * bucket_ms);
    y.push_back(static_cast<double>(s.rss_bytes[static_cast<size_t>(i)]));
  }
  Fit fit = least_squares(x, y);
  f.slope_bytes_per_min = fit.slope_per_ms * 60'000.0;
  f.r_squared = fit.r_squared;
  f.growth_ms = static_cast<int64_t>(static_cast<double>(reached - first + 1) * bucket_ms);
  const bool along_a_line = reached - first + 1 >= kMinFitPoints && f.r_squared >= kSteadyFit;
  // A line over a short stretch is a cache filling up, not growth that goes on.
  const bool sustained = static_cast<double>(f.growth_ms) >= kGrowthSustainedShare * static_cast<double>(s.span_ms);

  auto idle = [&](int64_t i) {
    if (!s.observed[static_cast<size_t>(i)]) {
      return false;
    }
    int64_t used = s.cpu_ns[static_cast<size_t>(i)] - (i > 0 ? s.cpu_ns[static_cast<size_t>(i - 1)] : 0);
    return static_cast<double>(used) < kIdleCoreShare * bucket_ms * 1e6;
  };
  int64_t idle_buckets = 0;
  for (int64_t i = reached + 1; i < points; ++i) {
    idle_buckets += idle(i) ? 1 : 0;
  }
  f.idle_after_max_ms = static_cast<int64_t>(static_cast<double>(idle_buckets) * bucket_ms);
  f.idle_at_end = idle(points - 1);

  if (static_cast<double>(f.end_bytes - f.start_bytes) <= kReturnedShare * static_cast<double>(rise)) {
    f.verdict = GrowthFinding::Verdict::kReturned;
  } else if (f.monotonic && along_a_line && sustained) {
    f.verdict = GrowthFinding::Verdict::kSteady;
  } else {
    f.verdict = GrowthFinding::Verdict::kHeld;
  }
  return f;
}

int64_t bucket_of(const ProcessSeries& s, int64_t t_ms) {
  const auto points = static_cast<int64_t>(s.rss_bytes.size());
  return std::clamp<int64_t>((t_ms - s.begin_ms) * points / s.span_ms, 0, points - 1);
}

// `ticks` in time order.
void mark_observed(ProcessSeries& s, const std::vector<store::TickRow>& ticks) {
  s.observed.assign(s.rss_bytes.size(), false);
  auto tick = std::lower_bound(ticks.begin(), ticks.end(), s.begin_ms,
                               [](const store::TickRow& row, int64_t t_ms) { return row.t_ms < t_ms; });
  for (; tick != ticks.end() && tick->t_ms <= s.begin_ms + s.span_ms; ++tick) {
    s.observed[static_cast<size_t>(bucket_of(s, tick->t_ms))] = true;
  }
}

// Memory that rose and stayed up is worth a claim only while it is still held: by a
// process running at the end (or until the recording stopped it), or by one that
// exited after sitting idle on it. One that exited while growing, or while still busy
// with what it had, was using its memory until the kernel freed it.
bool still_held(const GrowthFinding& f) {
  return f.verdict == GrowthFinding::Verdict::kReturned || f.ending != GrowthFinding::Ending::kExited ||
         static_cast<double>(f.idle_after_max_ms) >= kGrowthIdleHoldShare * static_cast<double>(f.span_ms);
}

// Where a process is judged up to, and why its memory would still be held there.
std::pair<GrowthFinding::Ending, int64_t> judged_until(const store::ProcessRow& p, std::optional<int64_t> tree_stopped_ms,
                                                       int64_t end_ms) {
  if (tree_stopped_ms && p.first_seen_ms < *tree_stopped_ms && p.end_ms.value_or(end_ms) > *tree_stopped_ms) {
    return {GrowthFinding::Ending::kStopped, *tree_stopped_ms};  // its shutdown is the recording's doing
  }
  if (p.end_ms) {
    return {GrowthFinding::Ending::kExited, *p.end_ms};
  }
  // Still running at the end: seen until the recording's end (or, interrupted, its
  // last sample).
  return {GrowthFinding::Ending::kRunning, p.last_seen_ms.value_or(end_ms)};
}

}  // namespace

std::vector<GrowthGroup> group_by_command(const GrowthReport& report) {
  std::vector<GrowthGroup> groups;
  std::map<std::pair<std::string, GrowthFinding::Verdict>, size_t> index;
  for (const auto& f : report.findings) {
    auto [it, added] = index.try_emplace({f.name, f.verdict}, groups.size());
    if (added) {
      groups.push_back({&f, 0});  // the findings come largest rise first
    }
    ++groups[it->second].count;
  }
  return groups;
}

Result<GrowthReport> analyze_growth(const store::Reader& reader, const std::vector<store::ProcessRow>& processes,
                                    int64_t interval_ms, int64_t end_ms) {
  GrowthReport report;
  const auto tree_stopped_ms = reader.meta().tree_stopped_ms;
  ASSIGN_OR_RETURN(auto ticks, reader.ticks());
  std::unordered_map<int64_t, ProcessSeries> series;
  for (const auto& p : processes) {
    ProcessSeries s;
    s.process = &p;
    s.begin_ms = p.first_seen_ms;
    s.end_ms = p.end_ms;
    auto [ending, until_ms] = judged_until(p, tree_stopped_ms, end_ms);
    s.ending = ending;
    s.span_ms = until_ms - s.begin_ms;
    s.ticks = interval_ms > 0 ? s.span_ms / interval_ms : 0;
    if (s.span_ms < kGrowthMinSpanMs || s.ticks < kGrowthMinTicks) {
      continue;
    }
    auto points = static_cast<size_t>(std::min(kMaxPoints, s.ticks));
    s.rss_bytes.assign(points, -1);
    s.cpu_ns.assign(points, -1);
    mark_observed(s, ticks);
    series.emplace(p.id, std::move(s));
  }
  report.judged = static_cast<int64_t>(series.size());
  if (series.empty()) {
    return report;
  }
  static constexpr std::array kColumns{store::kRssAnonBytes, store::kRssFileBytes, store::kRssShmemBytes,
                                       store::kVmSizeBytes,  store::kCpuUserNs,    store::kCpuSystemNs};
  auto visited = reader.for_each_sample(
      [&](int64_t t_ms, int64_t process_id, const store::SampleValues& v) {
        auto it = series.find(process_id);
        if (it == series.end()) {
          return;
        }
        ProcessSeries& s = it->second;
        if (t_ms > s.begin_ms + s.span_ms) {
          return;  // after the recording stopped it: its shutdown
        }
        // No address space: the process is exiting (its memory is being torn down),
        // which is not memory coming back down while it lived.
        if (v[store::kVmSizeBytes] == 0) {
          return;
        }
        const int64_t bucket = bucket_of(s, t_ms);
        s.rss_bytes[static_cast<size_t>(bucket)] = v.rss_bytes().value_or(0);  // rows come in time order: the last wins
        // The sample at its end holds the zombie's final CPU, which includes the exit
        // itself (unmapping its memory, closing its files): not work it did while
        // alive, and enough on a slow machine to make one that slept to its end look
        // busy at the end.
        if (!s.end_ms || t_ms < *s.end_ms) {
          s.cpu_ns[static_cast<size_t>(bucket)] = v.cpu_ns().value_or(0);
        }
      },
      kColumns);
  if (!visited) {
    return visited.error();
  }
  for (auto& [id, s] : series) {
    carry_forward(s.rss_bytes);
    carry_forward(s.cpu_ns);
    auto finding = judge(s);
    if (finding && still_held(*finding)) {
      report.findings.push_back(std::move(*finding));
    } else if (finding) {
      ++report.exited_while_busy;
    }
  }
  std::sort(report.findings.begin(), report.findings.end(), [](const GrowthFinding& a, const GrowthFinding& b) {
    if (a.verdict != b.verdict) {
      return a.verdict < b.verdict;
    }
    int64_t rise_a = a.max_bytes - a.start_bytes;
    int64_t rise_b = b.max_bytes - b.start_bytes;
    return rise_a != rise_b ? rise_a > rise_b : a.process_id < b.process_id;
  });
  return report;
}

}  // namespace canopy::analyze
