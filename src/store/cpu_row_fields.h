// Which field of a CPU sample row (cpu_rows.h) each column of its table
// (heap_tables.h) holds, as heap_row_fields.h maps the heap tables.
#pragma once

#include "store/cpu_rows.h"
#include "store/heap_tables.h"
#include "store/row_fields.h"

namespace canopy::store {

template <>
struct RowFields<CpuSampleRow> {
  using Index = cpu_sample_column::Index;
  static constexpr const Table& kTable = kCpuSampleTable;
  template <typename F>
  static void visit(Index c, F&& f) {
    namespace col = cpu_sample_column;
    switch (c) {
      case col::kTMs: return f(&CpuSampleRow::t_ms);
      case col::kProcessId: return f(&CpuSampleRow::process_id);
      case col::kPid: return f(&CpuSampleRow::pid);
      case col::kTid: return f(&CpuSampleRow::tid);
      case col::kStackId: return f(&CpuSampleRow::stack_id);
      case col::kCount: return;
    }
  }
};

}  // namespace canopy::store
