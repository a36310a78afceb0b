// The heap profile's tables (heap_rows.h), as tables.h names the others: made only in
// recordings made with --heap (heap_tables_sql() in schema.h, and then the recording
// is format 3), so that a recording without them stays byte for byte what it was.
// Ids are dense from 1 in every table that has them: readers keep rows in vectors by id.
#pragma once

#include <array>

#include "store/heap_rows.h"
#include "store/tables.h"

namespace canopy::store {

namespace heap_image_column {
enum Index : int {
  kId,
  kProcessId,
  kPid,
  kStartedMs,
  kRateBytes,
  kUnwind,
  kEndedMs,
  kEndReason,
  kSamples,
  kSamplesDropped,
  kCount
};
}
inline constexpr std::array<Column, heap_image_column::kCount> kHeapImageColumns = {{
    {"id", "INTEGER PRIMARY KEY"},
    {"process_id", "INTEGER REFERENCES process(id)"},
    {"pid", "INTEGER NOT NULL"},
    {"started_ms", "INTEGER NOT NULL"},
    {"rate_bytes", "INTEGER NOT NULL"},
    {"unwind", "TEXT NOT NULL"},
    {"ended_ms", "INTEGER"},
    // HeapImageRow::end: END is an SQL keyword, a trap in every query written by hand.
    {"end_reason", "TEXT"},
    {"samples", "INTEGER NOT NULL"},
    {"samples_dropped", "INTEGER NOT NULL"},
}};
inline constexpr Table kHeapImageTable{"heap_image", kHeapImageColumns, false, true};

namespace heap_module_column {
enum Index : int { kId, kPath, kBuildId, kCount };
}
inline constexpr std::array<Column, heap_module_column::kCount> kHeapModuleColumns = {{
    {"id", "INTEGER PRIMARY KEY"},
    {"path", "TEXT NOT NULL"},
    {"build_id", "TEXT NOT NULL"},
}};
inline constexpr Table kHeapModuleTable{"heap_module", kHeapModuleColumns, false, true};

namespace heap_frame_column {
enum Index : int { kId, kModuleId, kRelPc, kCount };
}
inline constexpr std::array<Column, heap_frame_column::kCount> kHeapFrameColumns = {{
    {"id", "INTEGER PRIMARY KEY"},
    {"module_id", "INTEGER REFERENCES heap_module(id)"},
    {"rel_pc", "INTEGER NOT NULL"},
}};
inline constexpr Table kHeapFrameTable{"heap_frame", kHeapFrameColumns, false, true};

// frame_ids is text, the frame ids innermost first and comma separated ("12,13,14";
// empty for a stack that could not be unwound): a stack is read whole or not at all,
// and a table of (stack, depth, frame) rows would be the largest of the recording.
namespace heap_stack_column {
enum Index : int { kId, kFrameIds, kCount };
}
inline constexpr std::array<Column, heap_stack_column::kCount> kHeapStackColumns = {{
    {"id", "INTEGER PRIMARY KEY"},
    {"frame_ids", "TEXT NOT NULL"},
}};
inline constexpr Table kHeapStackTable{"heap_stack", kHeapStackColumns, false, true};

namespace heap_snapshot_column {
enum Index : int { kId, kImageId, kTMs, kReason, kInUseBytes, kPeakInUseBytes, kSamples, kCount };
}
inline constexpr std::array<Column, heap_snapshot_column::kCount> kHeapSnapshotColumns = {{
    {"id", "INTEGER PRIMARY KEY"},
    {"image_id", "INTEGER NOT NULL REFERENCES heap_image(id)"},
    {"t_ms", "INTEGER NOT NULL"},
    {"reason", "TEXT NOT NULL"},
    {"in_use_bytes", "INTEGER NOT NULL"},
    {"peak_in_use_bytes", "INTEGER NOT NULL"},
    {"samples", "INTEGER NOT NULL"},
}};
inline constexpr Table kHeapSnapshotTable{"heap_snapshot", kHeapSnapshotColumns, false, true};

// No index by snapshot: the reader reads the whole table once and sorts it, cheaper
// than an index the recorder would update at every row.
namespace heap_stack_totals_column {
enum Index : int { kSnapshotId, kStackId, kAllocatedBytes, kAllocatedCount, kFreedBytes, kFreedCount, kCount };
}
inline constexpr std::array<Column, heap_stack_totals_column::kCount> kHeapStackTotalsColumns = {{
    {"snapshot_id", "INTEGER NOT NULL REFERENCES heap_snapshot(id)"},
    {"stack_id", "INTEGER NOT NULL REFERENCES heap_stack(id)"},
    {"allocated_bytes", "INTEGER NOT NULL"},
    {"allocated_count", "INTEGER NOT NULL"},
    {"freed_bytes", "INTEGER NOT NULL"},
    {"freed_count", "INTEGER NOT NULL"},
}};
inline constexpr Table kHeapStackTotalsTable{"heap_stack_totals", kHeapStackTotalsColumns, false, true};

namespace heap_allocation_column {
enum Index : int { kId, kImageId, kStackId, kSizeBytes, kProbability, kBornMs, kFreedMs, kCount };
}
inline constexpr std::array<Column, heap_allocation_column::kCount> kHeapAllocationColumns = {{
    {"id", "INTEGER PRIMARY KEY"},
    {"image_id", "INTEGER NOT NULL REFERENCES heap_image(id)"},
    {"stack_id", "INTEGER NOT NULL REFERENCES heap_stack(id)"},
    {"size_bytes", "INTEGER NOT NULL"},
    {"probability", "REAL NOT NULL"},
    {"born_ms", "INTEGER NOT NULL"},
    {"freed_ms", "INTEGER"},
}};
inline constexpr Table kHeapAllocationTable{"heap_allocation", kHeapAllocationColumns, false, true};

// Added after format 3 was first written, without a new format: a reader that does not
// know it reads the rest as before, and this one reads a format 3 file without it as
// one that does not say which processes went unprofiled (HeapProfile).
namespace heap_unprofiled_column {
enum Index : int { kProcessId, kPid, kReason, kRateBytes, kCount };
}
inline constexpr std::array<Column, heap_unprofiled_column::kCount> kHeapUnprofiledColumns = {{
    {"process_id", "INTEGER PRIMARY KEY REFERENCES process(id)"},
    {"pid", "INTEGER NOT NULL"},
    {"reason", "TEXT NOT NULL"},
    {"rate_bytes", "INTEGER NOT NULL"},
}};
inline constexpr Table kHeapUnprofiledTable{"heap_unprofiled", kHeapUnprofiledColumns, false, true};

// Every heap table, in the order heap_tables_sql() creates them: each after the
// tables it refers to.
inline constexpr std::array<const Table*, 8> kHeapTables = {
    &kHeapImageTable,    &kHeapModuleTable,      &kHeapFrameTable,      &kHeapStackTable,
    &kHeapSnapshotTable, &kHeapStackTotalsTable, &kHeapAllocationTable, &kHeapUnprofiledTable};

// The CPU profile (record --cpu-profile, cpu_rows.h): samples naming the stacks above.
// No index by time: readers read the whole table once, in rowid order, which is the
// order the samples were read from the kernel (time order within one ring buffer).
namespace cpu_sample_column {
enum Index : int { kTMs, kProcessId, kPid, kTid, kStackId, kCount };
}
inline constexpr std::array<Column, cpu_sample_column::kCount> kCpuSampleColumns = {{
    {"t_ms", "INTEGER NOT NULL"},
    {"process_id", "INTEGER REFERENCES process(id)"},
    {"pid", "INTEGER NOT NULL"},
    {"tid", "INTEGER NOT NULL"},
    {"stack_id", "INTEGER NOT NULL REFERENCES heap_stack(id)"},
}};
inline constexpr Table kCpuSampleTable{"cpu_sample", kCpuSampleColumns, false, true};

}  // namespace canopy::store
