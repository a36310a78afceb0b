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
#include <vector>

#include "store/writer.h"
#include "support/units.h"

namespace canopy::testing {

inline constexpr int64_t kFixtureStartMs = 1795341600000;  // date -u -d '2026-11-22 10:00:00' +%s

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

// The heap profile of the fixture (record --heap), for the heap exports' golden files.
// Its objects are at paths no machine has, so that every frame stays unnamed, the same
// everywhere:
//   image 1  make  pid 4242, exit at +1000; snapshots +500 (3000 B in use), +1000 (2000 B)
//   image 2  cc1   pid 4250, lost at +650;  snapshots +400 (9512 B, its peak), +600 (5000 B)
//   image 3  ld    pid 4251, a snapshot at +900 with nothing sampled
//   stacks   1 make: make, make, libc       2 cc1: cc1, cc1, libc
//            3 cc1: in no object, cc1, libc   4 cc1: none (not unwound), given back by +600
//            5 make: make, libc, all given back by +500
inline void add_heap_fixture(store::Writer& w, int64_t make_id, int64_t cc1_id, int64_t ld_id) {
  const int64_t t0 = kFixtureStartMs;
  store::HeapImageRow make{
      .process_id = make_id, .pid = 4242, .started_ms = t0 + 10, .rate_bytes = 4096, .unwind = "auto"};
  store::HeapImageRow cc1{
      .process_id = cc1_id, .pid = 4250, .started_ms = t0 + 210, .rate_bytes = 4096, .unwind = "dwarf"};
  make.id = w.add_heap_image(make);
  cc1.id = w.add_heap_image(cc1);
  int64_t ld_image_id = w.add_heap_image(
      {.process_id = ld_id, .pid = 4251, .started_ms = t0 + 510, .rate_bytes = 4096, .unwind = "auto"});
  w.add_heap_module({.path = "/nonexistent/bin/make", .build_id = "aa01"});
  w.add_heap_module({.path = "/nonexistent/lib/libc.so.6", .build_id = "bb02"});
  w.add_heap_module({.path = "/nonexistent/bin/cc1", .build_id = ""});
  w.add_heap_frame({.module_id = 1, .rel_pc = 0x1a2b});
  w.add_heap_frame({.module_id = 1, .rel_pc = 0x1000});
  w.add_heap_frame({.module_id = 2, .rel_pc = 0x29d90});
  w.add_heap_frame({.module_id = 3, .rel_pc = 0x4567});
  w.add_heap_frame({.module_id = 3, .rel_pc = 0x5000});
  w.add_heap_frame({.module_id = std::nullopt, .rel_pc = 0x7f0000001234});
  w.add_heap_stack({.frame_ids = {1, 2, 3}});
  w.add_heap_stack({.frame_ids = {4, 5, 3}});
  w.add_heap_stack({.frame_ids = {6, 5, 3}});
  w.add_heap_stack({.frame_ids = {}});
  w.add_heap_stack({.frame_ids = {2, 3}});
  auto snapshot = [&](int64_t image_id, int64_t t_ms, const char* reason, int64_t in_use, int64_t peak,
                      int64_t samples, std::vector<store::HeapStackTotalsRow> totals) {
    int64_t id = w.add_heap_snapshot({.image_id = image_id,
                                      .t_ms = t_ms,
                                      .reason = reason,
                                      .in_use_bytes = in_use,
                                      .peak_in_use_bytes = peak,
                                      .samples = samples});
    for (store::HeapStackTotalsRow& row : totals) {
      row.snapshot_id = id;
      w.add_heap_stack_totals(row);
    }
  };
  snapshot(make.id, t0 + 500, "interval", 3000, 3000, 7, {{0, 1, 5000, 5, 2000, 2}, {0, 5, 700, 7, 700, 7}});
  snapshot(make.id, t0 + 1000, "exit", 2000, 3000, 12, {{0, 1, 6000, 6, 4000, 4}});
  snapshot(cc1.id, t0 + 400, "peak", 9512, 9512, 10,
           {{0, 2, 8000, 8, 0, 0}, {0, 3, 1000, 1, 0, 0}, {0, 4, 512, 1, 0, 0}});
  snapshot(cc1.id, t0 + 600, "interval", 5000, 9512, 20, {{0, 2, 9000, 9, 5000, 5}, {0, 4, 512, 1, 512, 1}});
  snapshot(ld_image_id, t0 + 900, "interval", 0, 0, 0, {});
  make.ended_ms = t0 + 1000;
  make.end = "exit";
  make.samples = 12;
  w.update_heap_image_end(make);
  cc1.ended_ms = t0 + 650;
  cc1.end = "lost";
  cc1.samples = 20;
  cc1.samples_dropped = 1;
  w.update_heap_image_end(cc1);
}

// Writes the fixture recording to `path`, with its heap profile when `with_heap`;
// returns the first error, or empty.
inline std::string write_export_fixture(const std::string& path, bool with_heap = false) {
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
  if (with_heap) {
    if (auto enabled = w.enable_heap(); !enabled) {
      return enabled.error().message;
    }
    add_heap_fixture(w, make.id, cc1.id, ld.id);
  }
  auto status = w.finish();
  return status ? std::string() : status.error().message;
}

}  // namespace canopy::testing
