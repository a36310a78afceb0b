// The CPU profile's rows (record --cpu-profile): its table made on demand, after the
// heap tables whose stacks the samples name, and samples waiting in memory for the
// next commit as the others do.
#include "store/writer.h"

#include "store/cpu_row_fields.h"
#include "store/schema.h"
#include "store/writer_rows.h"

namespace canopy::store {

Status Writer::enable_cpu_profile() {
  if (!heap_enabled_) {
    RETURN_IF_ERROR(enable_heap());
  }
  auto failed = [&](const Status& status) { return Error{"cannot write '" + path_ + "': " + status.error().message}; };
  // Within the open transaction: the table and format 4 reach the file together.
  if (auto status = exec_sql(db_.get(), cpu_tables_sql().c_str()); !status) {
    return failed(status);
  }
  auto prepared = prepare(db_.get(), insert_sql(kCpuSampleTable));
  if (!prepared) {
    return Error{"cannot write '" + path_ + "': " + prepared.error().message};
  }
  cpu_sample_ = std::move(*prepared);
  if (auto status = write_meta(db_.get(), {.format_version = kCpuFormatVersion}); !status) {
    return failed(status);
  }
  cpu_enabled_ = true;
  return Ok{};
}

void Writer::add_cpu_sample(const CpuSampleRow& row) {
  pending_cpu_samples_.push_back(row);
  if (pending_cpu_samples_.size() >= kPendingHeapRowsAtMost) {
    write_pending_heap();  // the stacks they name first
    write_pending_cpu_samples();
  }
}

void Writer::write_pending_cpu_samples() {
  if (pending_cpu_samples_.empty()) {
    return;
  }
  if (!cpu_enabled_) {
    if (!failure_) {
      // The recorder's mistake, not the file's; the recording stops as on a write error.
      failure_ = Error{"cannot write '" + path_ + "': CPU samples added before enable_cpu_profile()"};
    }
    return;
  }
  insert_rows(pending_cpu_samples_, cpu_sample_.get());
}

}  // namespace canopy::store
