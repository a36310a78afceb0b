// Reader: the heap profile's tables (record --heap). Analyses index stacks, frames and
// modules by id and age allocations by their times, so every reference and value is
// checked here, once, rather than trusted by each of them.
#include "store/reader.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "store/heap_row_fields.h"

namespace canopy::store {
namespace {

// "heap frame 4 names heap module 9, which the recording does not have (it has 3)",
// when `id` is not one of the `count` dense ids of the table it refers to.
std::optional<std::string> heap_reference_problem(const std::string& what, const char* target, int64_t id,
                                                  size_t count) {
  if (id >= 1 && id <= static_cast<int64_t>(count)) {
    return std::nullopt;
  }
  return what + " names " + target + " " + std::to_string(id) + ", which the recording does not have (it has " +
         std::to_string(count) + ")";
}

// Ids are unique (the primary key), so ids within 1 to the number of rows are dense:
// what the references above, and readers keeping rows in vectors by id, count on.
template <typename Row>
std::optional<std::string> heap_dense_id_problem(const std::vector<Row>& rows) {
  for (const Row& row : rows) {
    if (row.id < 1 || row.id > static_cast<int64_t>(rows.size())) {
      return std::string("a ") + RowFields<Row>::kTable.name + " row has id " + std::to_string(row.id) +
             ", where the table's " + std::to_string(rows.size()) + " rows have ids 1 to " +
             std::to_string(rows.size());
    }
  }
  return std::nullopt;
}

// "heap allocation 5 has size_bytes -4096", for the first of `columns` (each a size,
// a count or a rate) below zero.
template <typename Row>
std::optional<std::string> heap_negative_problem(const std::string& what, const Row& row,
                                                 std::initializer_list<int> columns) {
  std::optional<std::string> problem;
  for (int c : columns) {
    RowFields<Row>::visit(static_cast<typename RowFields<Row>::Index>(c), [&](auto member) {
      if constexpr (std::is_same_v<std::decay_t<decltype(row.*member)>, int64_t>) {
        if (!problem && row.*member < 0) {
          problem = what + " has " + RowFields<Row>::kTable.columns[static_cast<size_t>(c)].name + " " +
                    std::to_string(row.*member);
        }
      }
    });
  }
  return problem;
}

// Damaged text in an error, which is one line: its start, printable.
std::string heap_quoted_text(std::string_view text) {
  constexpr size_t kAtMost = 40;
  std::string quoted = "'";
  for (char c : text.substr(0, kAtMost)) {
    quoted += c >= ' ' && c <= '~' ? c : '?';
  }
  return quoted + (text.size() > kAtMost ? "...'" : "'");
}

// The shortest text that reads back as `p` ("1.5", "nan"): std::to_string's six
// decimals would show a damaged 1e-9 as the 0.000000 it is not.
std::string heap_probability_text(double p) {
  char text[32];
  auto [end, ec] = std::to_chars(text, text + sizeof text, p);
  return ec == std::errc() ? std::string(text, end) : "?";
}

// What a heap row is checked against: the recording's span and processes, and the
// tables read before its own (each refers only to those).
struct HeapReadContext {
  const RecordingBounds& bounds;
  const HeapProfile& profile;
};

std::optional<std::string> heap_row_problem(const HeapReadContext& context, sqlite3_stmt*, const HeapImageRow& row) {
  namespace col = heap_image_column;
  std::string what = "heap image " + std::to_string(row.id);
  std::optional<std::string> problem;
  if (row.process_id) {
    problem = context.bounds.process_problem(what, *row.process_id);
  }
  if (!problem) {
    problem = context.bounds.time_problem(what + "'s start", row.started_ms);
  }
  if (!problem && row.ended_ms) {
    problem = context.bounds.time_problem(what + "'s end", *row.ended_ms);
    if (!problem && *row.ended_ms < row.started_ms) {
      problem = what + " ends (at " + std::to_string(*row.ended_ms) + " ms since the epoch) before it starts (" +
                std::to_string(row.started_ms) + ")";
    }
  }
  if (!problem) {
    problem = heap_negative_problem(what, row, {col::kPid, col::kRateBytes, col::kSamples, col::kSamplesDropped});
  }
  return problem;
}

// A path and a build-id: any text is one.
std::optional<std::string> heap_row_problem(const HeapReadContext&, sqlite3_stmt*, const HeapModuleRow&) {
  return std::nullopt;
}

// rel_pc is an address, unsigned in the process: any bits are one.
std::optional<std::string> heap_row_problem(const HeapReadContext& context, sqlite3_stmt*, const HeapFrameRow& row) {
  if (!row.module_id) {
    return std::nullopt;
  }
  return heap_reference_problem("heap frame " + std::to_string(row.id), "heap module", *row.module_id,
                                context.profile.modules.size());
}

std::optional<std::string> heap_row_problem(const HeapReadContext& context, sqlite3_stmt* s, const HeapStackRow& row) {
  std::string what = "heap stack " + std::to_string(row.id);
  // No frames is a stack that could not be unwound; damaged text also reads as none.
  if (row.frame_ids.empty()) {
    std::string text = column_text(s, heap_stack_column::kFrameIds);
    if (!text.empty()) {
      return what + " has frame ids " + heap_quoted_text(text) + ", not a list of ids";
    }
  }
  for (int64_t frame_id : row.frame_ids) {
    if (auto problem = heap_reference_problem(what, "heap frame", frame_id, context.profile.frames.size())) {
      return problem;
    }
  }
  return std::nullopt;
}

std::optional<std::string> heap_row_problem(const HeapReadContext& context, sqlite3_stmt*, const HeapSnapshotRow& row) {
  namespace col = heap_snapshot_column;
  std::string what = "heap snapshot " + std::to_string(row.id);
  auto problem = heap_reference_problem(what, "heap image", row.image_id, context.profile.images.size());
  if (!problem) {
    problem = context.bounds.time_problem(what, row.t_ms);
  }
  if (!problem) {
    problem = heap_negative_problem(what, row, {col::kInUseBytes, col::kPeakInUseBytes, col::kSamples});
  }
  return problem;
}

std::optional<std::string> heap_row_problem(const HeapReadContext& context, sqlite3_stmt*,
                                            const HeapStackTotalsRow& row) {
  namespace col = heap_stack_totals_column;
  std::string what = "the heap totals row of snapshot " + std::to_string(row.snapshot_id) + " and stack " +
                     std::to_string(row.stack_id);
  auto problem = heap_reference_problem(what, "heap snapshot", row.snapshot_id, context.profile.snapshots.size());
  if (!problem) {
    problem = heap_reference_problem(what, "heap stack", row.stack_id, context.profile.stacks.size());
  }
  if (!problem) {
    problem = heap_negative_problem(what, row,
                                    {col::kAllocatedBytes, col::kAllocatedCount, col::kFreedBytes, col::kFreedCount});
  }
  return problem;
}

std::optional<std::string> heap_row_problem(const HeapReadContext& context, sqlite3_stmt*,
                                            const HeapAllocationRow& row) {
  std::string what = "heap allocation " + std::to_string(row.id);
  auto problem = heap_reference_problem(what, "heap image", row.image_id, context.profile.images.size());
  if (!problem) {
    problem = heap_reference_problem(what, "heap stack", row.stack_id, context.profile.stacks.size());
  }
  if (!problem) {
    problem = heap_negative_problem(what, row, {heap_allocation_column::kSizeBytes});
  }
  // NaN compares false both ways: refused too.
  if (!problem && !(row.probability > 0 && row.probability <= 1)) {
    problem = what + " has probability " + heap_probability_text(row.probability) + ", outside (0, 1]";
  }
  if (!problem) {
    problem = context.bounds.time_problem(what + "'s birth", row.born_ms);
  }
  if (!problem && row.freed_ms) {
    problem = context.bounds.time_problem(what + "'s free", *row.freed_ms);
    if (!problem && *row.freed_ms < row.born_ms) {
      problem = what + " is freed (at " + std::to_string(*row.freed_ms) + " ms since the epoch) before it is born (" +
                std::to_string(row.born_ms) + ")";
    }
  }
  return problem;
}

// The reason is text a newer canopy may add to: any is read, and shown as it is.
std::optional<std::string> heap_row_problem(const HeapReadContext& context, sqlite3_stmt*,
                                            const HeapUnprofiledRow& row) {
  namespace col = heap_unprofiled_column;
  auto problem = context.bounds.process_problem("the heap_unprofiled row", row.process_id);
  std::string what = "the heap_unprofiled row of process " + std::to_string(row.process_id);
  if (!problem) {
    problem = heap_negative_problem(what, row, {col::kPid, col::kRateBytes});
  }
  if (!problem && row.reason.empty()) {
    problem = what + " has no reason";
  }
  return problem;
}

}  // namespace

template <typename Row, typename Problem>
Status Reader::read_heap_rows(const char* order, std::vector<Row>& rows, const Problem& problem) const {
  const Table& table = RowFields<Row>::kTable;
  RETURN_IF_ERROR(each_row(std::string("SELECT ") + column_list(table) + " FROM " + table.name + " ORDER BY " + order,
                           [&](sqlite3_stmt* s) {
                             Row row = read_fields<Row>(s);
                             if (std::optional<std::string> found = problem(s, row)) {
                               return Status(corrupt(*found));
                             }
                             rows.push_back(std::move(row));
                             return Status(Ok{});
                           }));
  if constexpr (requires(Row row) { row.id; }) {
    if (auto found = heap_dense_id_problem(rows)) {
      return corrupt(*found);
    }
  }
  return Ok{};
}

Result<bool> Reader::heap_profiled() const {
  auto has_heap = has_table(db_.get(), kHeapImageTable.name, &statements_);
  if (!has_heap) {
    return read_error();
  }
  bool any = false;
  if (*has_heap) {
    RETURN_IF_ERROR(each_row(std::string("SELECT 1 FROM ") + kHeapImageTable.name + " LIMIT 1", [&](sqlite3_stmt*) {
      any = true;
      return Status(Ok{});
    }));
  }
  return any;
}

Result<HeapProfile> Reader::heap_profile() const {
  HeapProfile profile;
  auto has_heap = has_table(db_.get(), kHeapImageTable.name, &statements_);
  if (!has_heap) {
    return read_error();
  }
  if (!*has_heap) {
    return profile;  // recorded without --heap
  }
  HeapReadContext context{bounds_, profile};
  auto problem = [&](sqlite3_stmt* s, const auto& row) { return heap_row_problem(context, s, row); };
  // Each table after those it refers to.
  RETURN_IF_ERROR(read_heap_rows("id", profile.images, problem));
  RETURN_IF_ERROR(read_heap_rows("id", profile.modules, problem));
  RETURN_IF_ERROR(read_heap_rows("id", profile.frames, problem));
  RETURN_IF_ERROR(read_heap_rows("id", profile.stacks, problem));
  RETURN_IF_ERROR(read_heap_rows("image_id, t_ms, id", profile.snapshots, problem));
  // An image's row is given its sample count as it ends: one still running when the
  // recorder was killed has its count only in its snapshots, each "so far".
  for (const HeapSnapshotRow& snapshot : profile.snapshots) {
    HeapImageRow& image = profile.images[static_cast<size_t>(snapshot.image_id - 1)];
    image.samples = std::max(image.samples, snapshot.samples);
  }
  RETURN_IF_ERROR(read_heap_rows("snapshot_id, stack_id", profile.totals, problem));
  RETURN_IF_ERROR(read_heap_rows("image_id, born_ms, id", profile.allocations, problem));
  auto has_unprofiled = has_table(db_.get(), kHeapUnprofiledTable.name, &statements_);
  if (!has_unprofiled) {
    return read_error();
  }
  profile.unprofiled_recorded = *has_unprofiled;
  if (profile.unprofiled_recorded) {
    RETURN_IF_ERROR(read_heap_rows("process_id", profile.unprofiled, problem));
  }
  return profile;
}

}  // namespace canopy::store
