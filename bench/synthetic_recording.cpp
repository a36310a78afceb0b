// Writes a large recording for the viewer bench, through the store's own Writer, so
// that it is exactly what `canopy record` would have written for such a tree:
//
//   canopy_bench_synthetic OUT PROCESSES SECONDS INTERVAL_MS BUSY_PERCENT
//
// PROCESSES live for the whole recording under one root. BUSY_PERCENT of them change
// memory and CPU on every tick (a random walk with occasional bursts, like workers
// under load); the others change every few seconds (idle workers). Seeded: the same
// arguments give the same file.
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "store/writer.h"

using namespace canopy;

int main(int argc, char** argv) {
  if (argc != 6) {
    std::fprintf(stderr, "usage: %s OUT PROCESSES SECONDS INTERVAL_MS BUSY_PERCENT\n", argv[0]);
    return 2;
  }
  std::string out = argv[1];
  int processes = std::atoi(argv[2]);
  int64_t seconds = std::atoll(argv[3]);
  int64_t interval_ms = std::atoll(argv[4]);
  int busy_percent = std::atoi(argv[5]);
  auto writer = store::Writer::create(out, true);
  if (!writer) {
    std::fprintf(stderr, "%s\n", writer.error().message.c_str());
    return 1;
  }
  const int64_t start_ms = 1'790'000'000'000;
  const int64_t end_ms = start_ms + seconds * 1000;
  writer->set_meta({.start_ms = start_ms});
  writer->set_meta({.interval_ms = interval_ms});
  writer->set_meta({.mode = "run"});
  writer->set_meta({.command = std::vector<std::string>{"synthetic", "workers"}});
  writer->set_meta({.probes = "proc-stat,proc-statm,proc-status,children-lists,schedstat,subreaper"});

  std::mt19937_64 random(42);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  struct Worker {
    int64_t id;
    bool busy;
    store::SampleValues v;
    int64_t peak = 0;
    int64_t peak_ms = 0;
  };
  std::vector<Worker> workers;
  for (int i = 0; i < processes; ++i) {
    store::ProcessRow row;
    row.pid = 1000 + i;
    row.start_ticks = 1000 + i;
    row.start_ms = start_ms;
    row.first_seen_ms = start_ms + interval_ms;
    row.parent_id = i == 0 ? std::nullopt : std::optional<int64_t>(1);
    row.ppid = i == 0 ? 999 : 1000;
    row.name = i == 0 ? "supervisor" : "worker-" + std::to_string(i % 8);
    row.cmdline = {row.name, "--id", std::to_string(i)};
    Worker w{writer->add_process(row), i > 0 && i * 100 < processes * busy_percent + 100, {}};
    w.v[store::kRssAnonBytes] = (20 + i % 50) * (1 << 20);
    w.v[store::kRssFileBytes] = 8 << 20;
    w.v[store::kRssShmemBytes] = 0;
    w.v[store::kSwapBytes] = 0;
    w.v[store::kVmSizeBytes] = 1 << 30;
    w.v[store::kCpuUserNs] = 0;
    w.v[store::kCpuSystemNs] = 0;
    w.v[store::kThreads] = 1;
    w.v[store::kMinorFaults] = 0;
    workers.push_back(w);
  }
  for (int64_t t = start_ms + interval_ms; t <= end_ms; t += interval_ms) {
    int64_t tick_index = (t - start_ms) / interval_ms;
    store::TickRow tick;
    tick.t_ms = t;
    tick.mem_total_bytes = 24LL << 30;
    for (Worker& w : workers) {
      bool changes = w.busy || (tick_index + w.id) % 50 == 0;
      if (changes) {
        int64_t& anon = *w.v[store::kRssAnonBytes];  // every column below was set above
        double step = (uniform(random) - 0.5) * 2 * (1 << 20);
        if (uniform(random) < 0.001) {
          step += 200.0 * (1 << 20) * (uniform(random) - 0.3);  // a rare burst
        }
        anon = std::max<int64_t>(4 << 20, anon + static_cast<int64_t>(step) / 4096 * 4096);
        *w.v[store::kCpuUserNs] += static_cast<int64_t>(uniform(random) * interval_ms * 1e6 * (w.busy ? 0.8 : 0.05));
        *w.v[store::kMinorFaults] += 10;
      }
      writer->add_sample(t, w.id, w.v);
      if (*w.v.rss_bytes() > w.peak) {
        w.peak = *w.v.rss_bytes();
        w.peak_ms = t;
      }
      tick.processes += 1;
      tick.rss_bytes += *w.v.rss_bytes();
      tick.cpu_ns += *w.v.cpu_ns();
    }
    tick.mem_available_bytes = tick.mem_total_bytes - tick.rss_bytes;
    writer->add_tick(tick);
    writer->commit_if_due(t, t + interval_ms);
  }
  for (Worker& w : workers) {
    store::ProcessRow row;
    row.id = w.id;
    row.last_seen_ms = end_ms;
    row.end_ms = end_ms;
    row.exit_code = 0;
    row.cpu_user_ns = w.v[store::kCpuUserNs];
    row.cpu_system_ns = 0;
    row.peak_rss_bytes = w.peak;
    row.peak_rss_t_ms = w.peak_ms;
    row.hwm_bytes = w.peak;
    writer->update_process_end(row);
  }
  writer->set_meta({.end_ms = end_ms});
  auto finished = writer->finish();
  if (!finished) {
    std::fprintf(stderr, "%s\n", finished.error().message.c_str());
    return 1;
  }
  return 0;
}
