// The recording as a series of ticks, each with the processes alive at it and their
// values carried forward: the shape of Onlooker's data, of a wide CSV and of counter
// tracks. A recording stores a row only when a value changed; this fills the ticks in
// between, reading the samples once, in time order, without holding them.
//
// A process is alive at a tick when first_seen_ms <= t <= last_seen_ms (to the end
// when last_seen_ms is unknown), as canopy's own timeline has it; a sample row
// between two ticks (a child's last figures, taken when it exited) counts at the next.
#pragma once

#include <cstdint>
#include <functional>
#include <span>

#include "common/result.h"
#include "store/reader.h"

namespace canopy::exporters {

struct ProcessAtTick {
  const store::ProcessRow* process;
  const store::SampleValues* values;  // carried forward; columns not asked for stay empty
  // CPU used since the previous tick, in percent of one CPU (100 = one CPU busy), as
  // canopy's timeline shows it. At a process's first tick: what it used since it
  // started, if it started within the interval, else 0 (attached to an old process).
  double cpu_percent;
};

struct TickFrame {
  size_t index;  // into the ticks given
  int64_t t_ms;
  std::span<const ProcessAtTick> processes;  // in the order of the processes given
};
using TickVisitor = std::function<void(const TickFrame& frame)>;

// Calls `visit` once per tick, in order. Only the processes in `processes` are
// followed (a caller may pass a subset); a process alive at a tick but with no sample
// yet is left out of that tick. `columns` as for Reader::for_each_sample; the CPU
// columns are always read, for cpu_percent.
Status for_each_tick(const store::Reader& reader, std::span<const store::ProcessRow> processes,
                     std::span<const store::TickRow> ticks, const TickVisitor& visit,
                     std::span<const store::SampleColumn> columns = {});

// How many ticks fall in the process's lifetime: an upper bound on its entries.
size_t ticks_alive(const store::ProcessRow& process, std::span<const store::TickRow> ticks);

}  // namespace canopy::exporters
