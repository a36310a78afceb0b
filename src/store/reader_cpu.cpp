// Reader: the CPU profile's samples (record --cpu-profile), each checked against the
// recording (its time, its process, its stack) once here rather than by each reader.
#include "store/reader.h"

#include "store/cpu_row_fields.h"

namespace canopy::store {

Result<CpuProfile> Reader::cpu_profile() const {
  CpuProfile profile;
  auto has_samples = has_table(db_.get(), kCpuSampleTable.name, &statements_);
  if (!has_samples) {
    return read_error();
  }
  if (!*has_samples) {
    return profile;  // recorded without --cpu-profile
  }
  profile.recorded = true;
  // The stacks the samples name are the heap tables', read and checked as those are.
  ASSIGN_OR_RETURN(HeapProfile stacks, heap_profile());
  profile.modules = std::move(stacks.modules);
  profile.frames = std::move(stacks.frames);
  profile.stacks = std::move(stacks.stacks);
  const int64_t stack_count = static_cast<int64_t>(profile.stacks.size());
  RETURN_IF_ERROR(each_row(std::string("SELECT ") + column_list(kCpuSampleTable) + " FROM cpu_sample ORDER BY rowid",
                           [&](sqlite3_stmt* s) -> Status {
                             CpuSampleRow row = read_fields<CpuSampleRow>(s);
                             std::string what = "cpu sample " + std::to_string(profile.samples.size() + 1);
                             std::optional<std::string> problem = bounds_.time_problem(what, row.t_ms);
                             if (!problem && row.process_id) {
                               problem = bounds_.process_problem(what, *row.process_id);
                             }
                             if (!problem && (row.stack_id < 1 || row.stack_id > stack_count)) {
                               problem = what + " names heap stack " + std::to_string(row.stack_id) +
                                         ", which the recording does not have (it has " +
                                         std::to_string(stack_count) + ")";
                             }
                             if (problem) {
                               return corrupt(*problem);
                             }
                             profile.samples.push_back(row);
                             return Ok{};
                           }));
  return profile;
}

}  // namespace canopy::store
