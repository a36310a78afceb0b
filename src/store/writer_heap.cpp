// The heap profile's rows (record --heap): its tables made on demand, rows waiting in
// memory for the next commit as writer.cpp's do, and the updates of rows that an
// earlier commit wrote (an image that ends, an allocation freed, seconds or an hour
// later).
#include "store/writer.h"

#include <array>

#include "store/heap_row_fields.h"
#include "store/schema.h"
#include "store/writer_rows.h"

namespace canopy::store {
namespace {

// What update_heap_image_end writes: what is known when the image's connection ends,
// and its process, which the recorder may learn only after the image's first row.
constexpr std::array<int, 5> kHeapImageEndColumns = {heap_image_column::kEndedMs, heap_image_column::kEndReason,
                                                     heap_image_column::kSamples, heap_image_column::kSamplesDropped,
                                                     heap_image_column::kProcessId};
constexpr std::array<int, 1> kHeapAllocationFreedColumns = {heap_allocation_column::kFreedMs};

}  // namespace

Status Writer::enable_heap() {
  auto failed = [&](const Status& status) { return Error{"cannot write '" + path_ + "': " + status.error().message}; };
  // Within the open transaction: the tables and format 3 reach the file together.
  if (auto status = exec_sql(db_.get(), heap_tables_sql().c_str()); !status) {
    return failed(status);
  }
  if (auto status = prepare_heap_statements(); !status) {
    return failed(status);
  }
  if (auto status = write_meta(db_.get(), {.format_version = kHeapFormatVersion}); !status) {
    return failed(status);
  }
  heap_enabled_ = true;
  return Ok{};
}

Status Writer::prepare_heap_statements() {
  struct {
    ScopedStmt* target;
    std::string sql;
  } statements[] = {
      {&heap_image_insert_, insert_sql(kHeapImageTable)},
      {&heap_image_end_, update_sql(kHeapImageTable, kHeapImageEndColumns, heap_image_column::kId)},
      {&heap_module_, insert_sql(kHeapModuleTable)},
      {&heap_frame_, insert_sql(kHeapFrameTable)},
      {&heap_stack_, insert_sql(kHeapStackTable)},
      {&heap_snapshot_, insert_sql(kHeapSnapshotTable)},
      {&heap_stack_totals_, insert_sql(kHeapStackTotalsTable)},
      {&heap_allocation_insert_, insert_sql(kHeapAllocationTable)},
      {&heap_allocation_freed_,
       update_sql(kHeapAllocationTable, kHeapAllocationFreedColumns, heap_allocation_column::kId)},
      {&heap_unprofiled_, insert_sql(kHeapUnprofiledTable)},
  };
  for (auto& statement : statements) {
    ASSIGN_OR_RETURN(*statement.target, prepare(db_.get(), statement.sql));
  }
  return Ok{};
}

int64_t Writer::add_heap_image(const HeapImageRow& row) { return pending_heap_images_.add(row); }

void Writer::update_heap_image_end(const HeapImageRow& row) {
  if (HeapImageRow* pending = pending_heap_images_.find(row.id)) {
    copy_fields(*pending, row, kHeapImageEndColumns);
    return;
  }
  pending_heap_image_ends_.push_back(row);
}

int64_t Writer::add_heap_module(const HeapModuleRow& row) { return pending_heap_modules_.add(row); }

int64_t Writer::add_heap_frame(const HeapFrameRow& row) { return pending_heap_frames_.add(row); }

int64_t Writer::add_heap_stack(const HeapStackRow& row) { return pending_heap_stacks_.add(row); }

int64_t Writer::add_heap_snapshot(const HeapSnapshotRow& row) { return pending_heap_snapshots_.add(row); }

void Writer::add_heap_stack_totals(const HeapStackTotalsRow& row) {
  pending_heap_totals_.push_back(row);
  if (pending_heap_totals_.size() >= kPendingHeapRowsAtMost) {
    write_pending_heap_totals();
  }
}

int64_t Writer::add_heap_allocation(const HeapAllocationRow& row) {
  int64_t id = pending_heap_allocations_.add(row);
  if (pending_heap_allocations_.rows().size() >= kPendingHeapRowsAtMost) {
    write_pending_heap_allocations();  // a later free of one of them becomes an update
  }
  return id;
}

void Writer::set_heap_allocation_freed(int64_t allocation_id, int64_t freed_ms) {
  if (HeapAllocationRow* pending = pending_heap_allocations_.find(allocation_id)) {
    pending->freed_ms = freed_ms;
    return;
  }
  HeapAllocationRow& freed = pending_heap_allocation_frees_.emplace_back();
  freed.id = allocation_id;
  freed.freed_ms = freed_ms;
}

void Writer::add_heap_unprofiled(const HeapUnprofiledRow& row) { pending_heap_unprofiled_.push_back(row); }

bool Writer::heap_tables_ready() {
  if (!heap_enabled_ && !failure_) {
    // The recorder's mistake, not the file's; the recording stops as on a write error.
    failure_ = Error{"cannot write '" + path_ + "': heap rows added before enable_heap()"};
  }
  return heap_enabled_;
}

void Writer::write_pending_heap_totals() {
  if (!heap_tables_ready()) {
    return;
  }
  insert_rows(pending_heap_totals_, heap_stack_totals_.get());
}

void Writer::write_pending_heap_allocations() {
  if (heap_tables_ready()) {
    insert_rows(pending_heap_allocations_, heap_allocation_insert_.get());
  }
}

void Writer::write_pending_heap_updates() {
  update_rows(pending_heap_image_ends_, heap_image_end_.get(), heap_image_column::kId, kHeapImageEndColumns);
  update_rows(pending_heap_allocation_frees_, heap_allocation_freed_.get(), heap_allocation_column::kId,
              kHeapAllocationFreedColumns);
}

void Writer::write_pending_heap_unprofiled() { insert_rows(pending_heap_unprofiled_, heap_unprofiled_.get()); }

void Writer::write_pending_heap() {
  if (!heap_enabled_) {
    bool any = !pending_heap_images_.rows().empty() || !pending_heap_modules_.rows().empty() ||
               !pending_heap_frames_.rows().empty() || !pending_heap_stacks_.rows().empty() ||
               !pending_heap_snapshots_.rows().empty() || !pending_heap_totals_.empty() ||
               !pending_heap_allocations_.rows().empty() || !pending_heap_image_ends_.empty() ||
               !pending_heap_allocation_frees_.empty() || !pending_heap_unprofiled_.empty();
    if (any) {
      heap_tables_ready();
    }
    return;
  }
  insert_rows(pending_heap_images_, heap_image_insert_.get());
  insert_rows(pending_heap_modules_, heap_module_.get());
  insert_rows(pending_heap_frames_, heap_frame_.get());
  insert_rows(pending_heap_stacks_, heap_stack_.get());
  insert_rows(pending_heap_snapshots_, heap_snapshot_.get());
  write_pending_heap_totals();
  write_pending_heap_allocations();
  write_pending_heap_updates();
  write_pending_heap_unprofiled();
}

}  // namespace canopy::store
