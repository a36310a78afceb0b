#include "store/meta.h"

#include <variant>

#include "common/text.h"
#include "store/reader.h"
#include "store/sqlite.h"
#include "store/tables.h"

namespace canopy::store {
namespace {

using MetaField = std::variant<std::optional<int64_t> RecordingMeta::*, std::optional<std::string> RecordingMeta::*,
                               std::optional<std::vector<std::string>> RecordingMeta::*>;

struct MetaKey {
  const char* key;
  MetaField field;
};

// The key is the field's name, spelled by the macro, so the two cannot drift apart.
#define CANOPY_META_KEY(name) MetaKey{#name, &RecordingMeta::name}
constexpr MetaKey kMetaKeys[] = {
    CANOPY_META_KEY(format_version),
    CANOPY_META_KEY(canopy_version),
    CANOPY_META_KEY(host),
    CANOPY_META_KEY(kernel),
    CANOPY_META_KEY(machine),
    CANOPY_META_KEY(cpu_count),
    CANOPY_META_KEY(page_size_bytes),
    CANOPY_META_KEY(clock_ticks_per_second),
    CANOPY_META_KEY(timezone),
    CANOPY_META_KEY(utc_offset_s),
    CANOPY_META_KEY(start_ms),
    CANOPY_META_KEY(interval_ms),
    CANOPY_META_KEY(mode),
    CANOPY_META_KEY(root_pid),
    CANOPY_META_KEY(recorder_pid),
    CANOPY_META_KEY(cwd),
    CANOPY_META_KEY(command),
    CANOPY_META_KEY(pss_interval_ms),
    CANOPY_META_KEY(probes),
    CANOPY_META_KEY(source),
    CANOPY_META_KEY(source_file),
    CANOPY_META_KEY(imported_ms),
    CANOPY_META_KEY(output_capture),
    CANOPY_META_KEY(process_events),
    CANOPY_META_KEY(process_events_filter),
    CANOPY_META_KEY(exit_records),
    CANOPY_META_KEY(cgroup),
    CANOPY_META_KEY(cpu_profile),
    CANOPY_META_KEY(end_ms),
    CANOPY_META_KEY(processes),
    CANOPY_META_KEY(exit_code),
    CANOPY_META_KEY(exit_signal),
    CANOPY_META_KEY(tree_cpu_user_ns),
    CANOPY_META_KEY(tree_cpu_system_ns),
    CANOPY_META_KEY(recorder_cpu_user_ns),
    CANOPY_META_KEY(recorder_cpu_system_ns),
    CANOPY_META_KEY(recorder_max_rss_bytes),
    CANOPY_META_KEY(tree_stopped_ms),
    CANOPY_META_KEY(process_events_received),
    CANOPY_META_KEY(process_events_filtered),
    CANOPY_META_KEY(process_events_lost),
    CANOPY_META_KEY(exit_records_filtered),
    CANOPY_META_KEY(exit_records_lost),
    CANOPY_META_KEY(processes_with_exit_records),
    CANOPY_META_KEY(machine_forks),
    CANOPY_META_KEY(cpu_samples_lost),
};
#undef CANOPY_META_KEY

std::string to_text(int64_t value) { return std::to_string(value); }
std::string to_text(const std::string& value) { return value; }
std::string to_text(const std::vector<std::string>& value) { return json_string_array(value); }

void from_text(const std::string& text, std::optional<int64_t>& value) { value = parse_int<int64_t>(text); }
void from_text(const std::string& text, std::optional<std::string>& value) { value = text; }
void from_text(const std::string& text, std::optional<std::vector<std::string>>& value) {
  value = parse_json_string_array(text);
}

}  // namespace

Status write_meta(sqlite3* db, const RecordingMeta& meta) {
  ASSIGN_OR_RETURN(auto insert, prepare(db, insert_sql(kMetaTable, "INSERT OR REPLACE")));
  for (const MetaKey& key : kMetaKeys) {
    std::optional<std::string> text;
    std::visit(
        [&](auto field) {
          if (meta.*field) {
            text = to_text(*(meta.*field));
          }
        },
        key.field);
    if (!text) {
      continue;
    }
    bind_text(insert.get(), meta_column::kKey + 1, key.key);
    bind_text(insert.get(), meta_column::kValue + 1, *text);
    if (sqlite3_step(insert.get()) != SQLITE_DONE) {
      return Error{last_error(db)};
    }
    sqlite3_reset(insert.get());
  }
  return Ok{};
}

RecordingMeta meta_from_rows(const std::map<std::string, std::string>& rows) {
  RecordingMeta meta;
  for (const MetaKey& key : kMetaKeys) {
    if (auto it = rows.find(key.key); it != rows.end()) {
      std::visit([&](auto field) { from_text(it->second, meta.*field); }, key.field);
    }
  }
  return meta;
}

const char* meta_key(std::optional<int64_t> RecordingMeta::*field) {
  for (const MetaKey& key : kMetaKeys) {
    if (key.field == MetaField(field)) {
      return key.key;
    }
  }
  return "";
}

}  // namespace canopy::store
