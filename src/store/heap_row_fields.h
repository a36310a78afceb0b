// Which field of a heap row (heap_rows.h) each column of its table (heap_tables.h)
// holds, as row_fields.h maps the other tables: one switch per table.
#pragma once

#include "store/heap_rows.h"
#include "store/heap_tables.h"
#include "store/row_fields.h"

namespace canopy::store {

template <>
struct RowFields<HeapImageRow> {
  using Index = heap_image_column::Index;
  static constexpr const Table& kTable = kHeapImageTable;
  template <typename F>
  static void visit(Index c, F&& f) {
    namespace col = heap_image_column;
    switch (c) {
      case col::kId: return f(&HeapImageRow::id);
      case col::kProcessId: return f(&HeapImageRow::process_id);
      case col::kPid: return f(&HeapImageRow::pid);
      case col::kStartedMs: return f(&HeapImageRow::started_ms);
      case col::kRateBytes: return f(&HeapImageRow::rate_bytes);
      case col::kUnwind: return f(&HeapImageRow::unwind);
      case col::kEndedMs: return f(&HeapImageRow::ended_ms);
      case col::kEndReason: return f(&HeapImageRow::end);
      case col::kSamples: return f(&HeapImageRow::samples);
      case col::kSamplesDropped: return f(&HeapImageRow::samples_dropped);
      case col::kCount: return;
    }
  }
};

template <>
struct RowFields<HeapModuleRow> {
  using Index = heap_module_column::Index;
  static constexpr const Table& kTable = kHeapModuleTable;
  template <typename F>
  static void visit(Index c, F&& f) {
    namespace col = heap_module_column;
    switch (c) {
      case col::kId: return f(&HeapModuleRow::id);
      case col::kPath: return f(&HeapModuleRow::path);
      case col::kBuildId: return f(&HeapModuleRow::build_id);
      case col::kCount: return;
    }
  }
};

template <>
struct RowFields<HeapFrameRow> {
  using Index = heap_frame_column::Index;
  static constexpr const Table& kTable = kHeapFrameTable;
  template <typename F>
  static void visit(Index c, F&& f) {
    namespace col = heap_frame_column;
    switch (c) {
      case col::kId: return f(&HeapFrameRow::id);
      case col::kModuleId: return f(&HeapFrameRow::module_id);
      case col::kRelPc: return f(&HeapFrameRow::rel_pc);
      case col::kCount: return;
    }
  }
};

template <>
struct RowFields<HeapStackRow> {
  using Index = heap_stack_column::Index;
  static constexpr const Table& kTable = kHeapStackTable;
  template <typename F>
  static void visit(Index c, F&& f) {
    namespace col = heap_stack_column;
    switch (c) {
      case col::kId: return f(&HeapStackRow::id);
      case col::kFrameIds: return f(&HeapStackRow::frame_ids);
      case col::kCount: return;
    }
  }
};

template <>
struct RowFields<HeapSnapshotRow> {
  using Index = heap_snapshot_column::Index;
  static constexpr const Table& kTable = kHeapSnapshotTable;
  template <typename F>
  static void visit(Index c, F&& f) {
    namespace col = heap_snapshot_column;
    switch (c) {
      case col::kId: return f(&HeapSnapshotRow::id);
      case col::kImageId: return f(&HeapSnapshotRow::image_id);
      case col::kTMs: return f(&HeapSnapshotRow::t_ms);
      case col::kReason: return f(&HeapSnapshotRow::reason);
      case col::kInUseBytes: return f(&HeapSnapshotRow::in_use_bytes);
      case col::kPeakInUseBytes: return f(&HeapSnapshotRow::peak_in_use_bytes);
      case col::kSamples: return f(&HeapSnapshotRow::samples);
      case col::kCount: return;
    }
  }
};

template <>
struct RowFields<HeapStackTotalsRow> {
  using Index = heap_stack_totals_column::Index;
  static constexpr const Table& kTable = kHeapStackTotalsTable;
  template <typename F>
  static void visit(Index c, F&& f) {
    namespace col = heap_stack_totals_column;
    switch (c) {
      case col::kSnapshotId: return f(&HeapStackTotalsRow::snapshot_id);
      case col::kStackId: return f(&HeapStackTotalsRow::stack_id);
      case col::kAllocatedBytes: return f(&HeapStackTotalsRow::allocated_bytes);
      case col::kAllocatedCount: return f(&HeapStackTotalsRow::allocated_count);
      case col::kFreedBytes: return f(&HeapStackTotalsRow::freed_bytes);
      case col::kFreedCount: return f(&HeapStackTotalsRow::freed_count);
      case col::kCount: return;
    }
  }
};

template <>
struct RowFields<HeapAllocationRow> {
  using Index = heap_allocation_column::Index;
  static constexpr const Table& kTable = kHeapAllocationTable;
  template <typename F>
  static void visit(Index c, F&& f) {
    namespace col = heap_allocation_column;
    switch (c) {
      case col::kId: return f(&HeapAllocationRow::id);
      case col::kImageId: return f(&HeapAllocationRow::image_id);
      case col::kStackId: return f(&HeapAllocationRow::stack_id);
      case col::kSizeBytes: return f(&HeapAllocationRow::size_bytes);
      case col::kProbability: return f(&HeapAllocationRow::probability);
      case col::kBornMs: return f(&HeapAllocationRow::born_ms);
      case col::kFreedMs: return f(&HeapAllocationRow::freed_ms);
      case col::kCount: return;
    }
  }
};

template <>
struct RowFields<HeapUnprofiledRow> {
  using Index = heap_unprofiled_column::Index;
  static constexpr const Table& kTable = kHeapUnprofiledTable;
  template <typename F>
  static void visit(Index c, F&& f) {
    namespace col = heap_unprofiled_column;
    switch (c) {
      case col::kProcessId: return f(&HeapUnprofiledRow::process_id);
      case col::kPid: return f(&HeapUnprofiledRow::pid);
      case col::kReason: return f(&HeapUnprofiledRow::reason);
      case col::kRateBytes: return f(&HeapUnprofiledRow::rate_bytes);
      case col::kCount: return;
    }
  }
};

}  // namespace canopy::store
