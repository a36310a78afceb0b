// A small recording whose every number is fixed, built through the Writer, for the
// exporters' golden files: the same bytes on every machine and every run.
//
// 2026-11-22 10:00:00.000 UTC (kStartMs) to 10:00:01.000, a tick every 100 ms (11
// ticks), 2 CPUs. Processes:
//   1 make       pid 4242, ppid 1     the root, alive throughout, I/O unreadable (null)
//   2 cc1, "x"   pid 4250, ppid 4242  a name with a comma and quotes; from +200 to +650,
//                                     its exit row (+650) between two ticks holds its
//                                     highest resident figure, and its VmHWM is higher
//   3 ld         pid 4251, ppid 4242  from +500, alive at the end
//   4 brief      pid 4260, ppid 4242  +310 to +340: never alive at a tick
// Events: exec (make), a log line (no process), a mark, a stderr line with quotes.
#pragma once

#include <algorithm>
#include <string>

#include "store/writer.h"

namespace canopy::testing {

inline constexpr int64_t kFixtureStartMs = 1795341600000;  // date -u -d '2026-11-22 10:00:00' +%s
inline constexpr int64_t kMiB = 1 << 20;

inline store::SampleValues fixture_values(int64_t anon_mib, int64_t file_mib, int64_t swap_mib, int64_t cpu_ms,
                                          int64_t minor_faults) {
  store::SampleValues v;
  v[store::kRssAnonBytes] = anon_mib * kMiB;
  v[store::kRssFileBytes] = file_mib * kMiB;
  v[store::kRssShmemBytes] = 0;
  v[store::kSwapBytes] = swap_mib * kMiB;
  v[store::kVmSizeBytes] = (anon_mib + file_mib + 100) * kMiB;
  v[store::kCpuUserNs] = cpu_ms * 1'000'000 * 3 / 4;
  v[store::kCpuSystemNs] = cpu_ms * 1'000'000 / 4;
  v[store::kThreads] = 1;
  v[store::kMinorFaults] = minor_faults;
  v[store::kMajorFaults] = 2;
  v[store::kReadBytes] = 4096;
  v[store::kWriteBytes] = 512;
  v[store::kDiskReadBytes] = 0;
  v[store::kDiskWriteBytes] = 0;
  return v;  // PSS and USS stay unknown: recorded without --pss
}

// Writes the fixture recording to `path`; returns the first error, or empty.
inline std::string write_export_fixture(const std::string& path) {
  auto writer = store::Writer::create(path, false);
  if (!writer) {
    return writer.error().message;
  }
  const int64_t t0 = kFixtureStartMs;
  store::Writer& w = *writer;
  w.set_meta({.start_ms = t0});
  w.set_meta({.end_ms = t0 + 1000});
  w.set_meta({.interval_ms = 100});
  w.set_meta({.cpu_count = 2});
  w.set_meta({.mode = "run"});
  w.set_meta({.command = std::vector<std::string>{"make", "-j2"}});
  w.set_meta({.root_pid = 4242});

  auto process = [&](int64_t pid, int64_t ppid, std::optional<int64_t> parent, const char* name,
                     std::vector<std::string> cmdline, int64_t start_ms) {
    // Started before the recording (the root, forked before it began) or during it.
    store::ProcessRow row;
    row.pid = pid;
    row.ppid = ppid;
    row.parent_id = parent;
    row.name = name;
    row.exe = "/usr/bin/" + std::string(name);
    row.cmdline = std::move(cmdline);
    row.start_ticks = start_ms / 10;
    row.start_ms = start_ms;
    row.first_seen_ms = std::max(start_ms, t0);
    row.id = w.add_process(row);
    return row;
  };
  store::ProcessRow make = process(4242, 1, std::nullopt, "make", {"make", "-j2"}, t0 - 50);
  store::ProcessRow cc1 = process(4250, 4242, make.id, "cc1, \"x\"", {"cc1", "-o", "a \"b\".o"}, t0 + 200);
  store::ProcessRow ld = process(4251, 4242, make.id, "ld", {"ld", "-o", "app"}, t0 + 500);
  store::ProcessRow brief = process(4260, 4242, make.id, "brief", {"true"}, t0 + 310);

  auto make_values = [](int64_t anon_mib, int64_t swap_mib, int64_t cpu_ms, int64_t faults) {
    store::SampleValues v = fixture_values(anon_mib, 2, swap_mib, cpu_ms, faults);
    for (auto c : {store::kReadBytes, store::kWriteBytes, store::kDiskReadBytes, store::kDiskWriteBytes}) {
      v[c] = std::nullopt;  // /proc/PID/io unreadable
    }
    return v;
  };
  auto tick = [&](int64_t t_ms, int64_t processes, int64_t rss_mib, int64_t cpu_ms) {
    w.add_tick({t_ms, processes, rss_mib * kMiB, 0, std::nullopt, cpu_ms * 1'000'000, 8192 * kMiB,
                6144 * kMiB, 1024 * kMiB, 1024 * kMiB});
  };
  // t0: make starts at 10 MiB; it works (CPU) until +300, then waits.
  w.add_sample(t0, make.id, make_values(10, 0, 20, 100));
  tick(t0, 1, 12, 20);
  w.add_sample(t0 + 100, make.id, make_values(11, 0, 60, 150));
  tick(t0 + 100, 1, 13, 60);
  w.add_sample(t0 + 200, make.id, make_values(12, 0, 100, 180));
  w.add_sample(t0 + 200, cc1.id, fixture_values(5, 1, 0, 10, 50));
  tick(t0 + 200, 2, 20, 110);
  w.add_sample(t0 + 300, make.id, make_values(12, 0, 110, 180));
  w.add_sample(t0 + 300, cc1.id, fixture_values(40, 1, 0, 100, 900));
  tick(t0 + 300, 2, 55, 210);
  w.add_sample(t0 + 310, brief.id, fixture_values(1, 1, 0, 1, 10));
  w.add_sample(t0 + 340, brief.id, fixture_values(1, 1, 0, 2, 12));
  w.add_sample(t0 + 400, cc1.id, fixture_values(80, 1, 0, 200, 2000));
  tick(t0 + 400, 2, 95, 312);
  w.add_sample(t0 + 500, cc1.id, fixture_values(120, 1, 0, 300, 3000));
  w.add_sample(t0 + 500, ld.id, fixture_values(3, 4, 0, 0, 20));
  tick(t0 + 500, 3, 142, 412);
  w.add_sample(t0 + 600, cc1.id, fixture_values(100, 1, 0, 350, 3100));
  w.add_sample(t0 + 600, ld.id, fixture_values(30, 4, 0, 80, 400));
  tick(t0 + 600, 3, 149, 542);
  w.add_sample(t0 + 650, cc1.id, fixture_values(130, 1, 0, 360, 3200));  // its exit row
  w.add_sample(t0 + 700, make.id, make_values(12, 1, 110, 180));  // a MiB went to swap
  w.add_sample(t0 + 700, ld.id, fixture_values(60, 4, 0, 180, 800));
  tick(t0 + 700, 2, 78, 652);
  w.add_sample(t0 + 800, ld.id, fixture_values(64, 4, 0, 250, 900));
  tick(t0 + 800, 2, 82, 722);
  tick(t0 + 900, 2, 82, 722);  // nothing changed: no sample rows
  w.add_sample(t0 + 1000, make.id, make_values(12, 1, 115, 181));
  tick(t0 + 1000, 2, 82, 727);

  w.add_event({t0 + 150, "exec", make.id, "make -j2"});
  w.add_event({t0 + 250, "log", std::nullopt, "compiling a.c"});
  w.add_event({t0 + 600, "mark", std::nullopt, "phase 2"});
  w.add_event({t0 + 640, "stderr", cc1.id, "warning: \"b\" unused, see a.c:3"});

  auto end = [&](store::ProcessRow& row, std::optional<int64_t> end_ms, std::optional<int64_t> last_seen_ms,
                 int64_t peak_mib, int64_t peak_t_ms, std::optional<int64_t> hwm_mib, int64_t cpu_ms) {
    row.end_ms = end_ms;
    row.last_seen_ms = last_seen_ms;
    row.peak_rss_bytes = peak_mib * kMiB;
    row.peak_rss_t_ms = peak_t_ms;
    if (hwm_mib) {
      row.hwm_bytes = *hwm_mib * kMiB;
    }
    row.cpu_user_ns = cpu_ms * 1'000'000 * 3 / 4;
    row.cpu_system_ns = cpu_ms * 1'000'000 / 4;
    if (end_ms) {
      row.exit_code = 0;
    }
    w.update_process_end(row);
  };
  end(make, t0 + 1000, t0 + 1000, 14, t0 + 200, 15, 115);
  end(cc1, t0 + 650, t0 + 650, 131, t0 + 650, 140, 360);
  end(ld, std::nullopt, t0 + 1000, 68, t0 + 800, std::nullopt, 250);
  end(brief, t0 + 340, t0 + 340, 2, t0 + 310, 2, 2);
  auto status = w.finish();
  return status ? std::string() : status.error().message;
}

}  // namespace canopy::testing
