#include "import/onlooker_import.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <optional>
#include <utility>
#include <vector>

#include "import/onlooker_file.h"
#include "import/onlooker_tree.h"
#include "import/staged_recording.h"
#include "store/reader.h"

namespace canopy::importers {
namespace {

int64_t now_ms() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

// The typical gap between two sampling rounds: Onlooker's poll interval (100 ms
// unless ONLOOKER_POLL_INTERVAL said otherwise), as it came out.
int64_t median_gap_ms(const std::vector<int64_t>& times) {
  std::vector<int64_t> gaps;
  for (size_t i = 1; i < times.size(); ++i) {
    gaps.push_back(times[i] - times[i - 1]);
  }
  if (gaps.empty()) {
    return 0;
  }
  std::nth_element(gaps.begin(), gaps.begin() + static_cast<ptrdiff_t>(gaps.size() / 2), gaps.end());
  return gaps[gaps.size() / 2];
}

// Onlooker's two memory figures as canopy's columns, chosen so that canopy's export
// gives them back exactly: resident = anon + file, private = anon + swap.
store::SampleValues sample_values(const OnlookerEntry& e, int64_t cpu_ns) {
  store::SampleValues v;
  int64_t anon = std::min(e.pagefile_bytes, e.working_set_bytes);
  v[store::kRssAnonBytes] = anon;
  v[store::kRssFileBytes] = e.working_set_bytes - anon;  // shared and image pages
  v[store::kRssShmemBytes] = 0;
  // What Cutelooker shows as paged out: committed beyond the working set.
  v[store::kSwapBytes] = e.pagefile_bytes - anon;
  v[store::kCpuUserNs] = cpu_ns;  // Onlooker gives user and kernel time together
  v[store::kCpuSystemNs] = 0;
  v[store::kMinorFaults] = e.page_faults;  // Windows counts soft and hard faults together
  return v;
}

struct Followed {
  int64_t id = 0;
  double cpu_ns = 0;
  std::optional<int64_t> previous_ms;
};

}  // namespace

std::string default_import_output(const std::string& input) {
  std::filesystem::path path(input);
  return path.replace_extension(".canopy").string();
}

Result<ImportSummary> import_onlooker(const OnlookerImportOptions& options) {
  // First: a refused output is said before minutes of reading.
  ASSIGN_OR_RETURN(auto staged, StagedRecording::create(options.output, options.force, options.input));
  ASSIGN_OR_RETURN(auto read, read_onlooker_file(options.input, options.progress));
  if (read.empty()) {
    return Error{options.input + ": no process with samples: nothing to import"};
  }
  std::vector<int64_t> times;
  for (const OnlookerProcess& p : read) {
    for (const OnlookerEntry& e : p.entries) {
      times.push_back(e.t_ms);
    }
  }
  std::sort(times.begin(), times.end());
  times.erase(std::unique(times.begin(), times.end()), times.end());
  OnlookerTree tree = build_onlooker_tree(std::move(read), times);
  const std::vector<OnlookerProcess>& processes = tree.processes;
  const std::vector<std::optional<size_t>>& parents = tree.parents;
  std::vector<std::pair<int64_t, size_t>> order;  // (time, process): the samples in time order
  for (size_t i = 0; i < processes.size(); ++i) {
    for (const OnlookerEntry& e : processes[i].entries) {
      order.emplace_back(e.t_ms, i);
    }
  }
  std::sort(order.begin(), order.end());
  int64_t interval_ms = median_gap_ms(times);
  int64_t cpu_count = options.cpu_count.value_or(1);

  store::Writer& writer = staged.writer();
  store::RecordingMeta meta;
  meta.canopy_version = CANOPY_VERSION;
  meta.mode = "import";
  meta.source = "onlooker";
  meta.source_file = options.input;
  meta.imported_ms = now_ms();
  meta.command = std::vector<std::string>();  // Onlooker's JSON does not say what ran
  meta.start_ms = times.front();
  meta.end_ms = times.back();
  if (interval_ms > 0) {
    meta.interval_ms = interval_ms;
  }
  meta.cpu_count = options.cpu_count;
  meta.processes = static_cast<int64_t>(processes.size());
  for (size_t i = 0; i < processes.size(); ++i) {
    if (!parents[i]) {
      meta.root_pid = processes[i].pid;  // the earliest without a parent: the command
      break;
    }
  }
  writer.set_meta(meta);

  std::vector<store::ProcessRow> rows(processes.size());
  std::vector<Followed> followed(processes.size());
  for (size_t i = 0; i < processes.size(); ++i) {
    const OnlookerProcess& p = processes[i];
    store::ProcessRow& row = rows[i];
    row.pid = p.pid;
    row.ppid = p.ppid;
    row.name = p.name;
    row.start_ms = row.first_seen_ms = p.entries.front().t_ms;
    // The only start Onlooker gives: with the PID, it tells instances apart as
    // /proc's start time does for recorded processes.
    row.start_ticks = row.start_ms;
    if (parents[i]) {
      row.parent_id = followed[*parents[i]].id;  // parents come first: already numbered
    }
    followed[i].id = row.id = writer.add_process(row);
  }

  ImportSummary summary;
  summary.processes = static_cast<int64_t>(processes.size());
  summary.ticks = static_cast<int64_t>(times.size());
  summary.start_ms = times.front();
  summary.end_ms = times.back();
  std::vector<size_t> next_entry(processes.size(), 0);
  size_t tick = 0;
  store::TickRow tick_row;
  double tree_cpu_ns = 0;
  auto flush_tick = [&] {
    tick_row.cpu_ns = std::llround(tree_cpu_ns);
    writer.add_tick(tick_row);
  };
  for (size_t k = 0; k < order.size(); ++k) {
    auto [t_ms, i] = order[k];
    while (times[tick] < t_ms) {
      ++tick;
    }
    if (tick_row.t_ms != t_ms) {
      tick_row = {};
      tick_row.t_ms = t_ms;
    }
    const OnlookerEntry& e = processes[i].entries[next_entry[i]++];
    Followed& f = followed[i];
    // cpuUsage is the share of the machine since this process's previous sample (its
    // first: since the previous round, as Onlooker measured it).
    int64_t from_ms = f.previous_ms.value_or(tick > 0 ? times[tick - 1] : t_ms - interval_ms);
    double used_ns = e.cpu_percent / 100.0 * static_cast<double>(cpu_count) * static_cast<double>(t_ms - from_ms) * 1e6;
    f.cpu_ns += used_ns;
    tree_cpu_ns += used_ns;
    f.previous_ms = t_ms;
    summary.has_cpu = summary.has_cpu || e.cpu_percent > 0;

    store::SampleValues values = sample_values(e, std::llround(f.cpu_ns));
    writer.add_sample(t_ms, f.id, values);
    ++summary.samples;
    store::ProcessRow& row = rows[i];
    if (!row.peak_rss_bytes || e.working_set_bytes > *row.peak_rss_bytes) {
      row.peak_rss_bytes = e.working_set_bytes;
      row.peak_rss_t_ms = t_ms;
    }
    if (e.peak_working_set_bytes) {
      row.hwm_bytes = std::max(row.hwm_bytes.value_or(0), *e.peak_working_set_bytes);
    }
    ++tick_row.processes;
    tick_row.rss_bytes += e.working_set_bytes;
    tick_row.swap_bytes += values[store::kSwapBytes].value_or(0);
    if (k + 1 == order.size() || order[k + 1].first != t_ms) {
      flush_tick();
    }
  }
  for (size_t i = 0; i < processes.size(); ++i) {
    store::ProcessRow& row = rows[i];
    // Onlooker does not see processes end: the last sample is the end we know.
    row.last_seen_ms = row.end_ms = processes[i].entries.back().t_ms;
    row.cpu_user_ns = std::llround(followed[i].cpu_ns);
    row.cpu_system_ns = 0;
    writer.update_process_end(row);
  }
  if (writer.failure()) {
    return *writer.failure();
  }
  RETURN_IF_ERROR(staged.commit());
  return summary;
}

}  // namespace canopy::importers
