#include "store/schema.h"

#include "store/recording.h"

namespace canopy::store {

std::string schema_sql() {
  std::string sample_columns;
  for (const char* name : kSampleColumnNames) {
    sample_columns += std::string(",\n  ") + name + " INTEGER";
  }
  return R"(
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE process(
  id INTEGER PRIMARY KEY,
  pid INTEGER NOT NULL,
  start_ticks INTEGER NOT NULL,
  start_ms INTEGER NOT NULL,
  parent_id INTEGER REFERENCES process(id),
  ppid INTEGER NOT NULL,
  adopted INTEGER NOT NULL DEFAULT 0,
  name TEXT NOT NULL,
  exe TEXT NOT NULL,
  cmdline TEXT NOT NULL,
  named_from_exit_record INTEGER NOT NULL DEFAULT 0,
  first_seen_ms INTEGER NOT NULL,
  last_seen_ms INTEGER,
  end_ms INTEGER,
  exit_code INTEGER,
  exit_signal INTEGER,
  peak_rss_bytes INTEGER,
  peak_rss_t_ms INTEGER,
  hwm_bytes INTEGER,
  cpu_user_ns INTEGER,
  cpu_system_ns INTEGER);
CREATE TABLE sample(
  t_ms INTEGER NOT NULL,
  process_id INTEGER NOT NULL REFERENCES process(id))" +
         sample_columns + R"();
CREATE TABLE tick(
  t_ms INTEGER PRIMARY KEY,
  processes INTEGER NOT NULL,
  rss_bytes INTEGER NOT NULL,
  swap_bytes INTEGER NOT NULL,
  pss_bytes INTEGER,
  cpu_ns INTEGER NOT NULL,
  mem_total_bytes INTEGER NOT NULL,
  mem_available_bytes INTEGER NOT NULL,
  swap_total_bytes INTEGER NOT NULL,
  swap_free_bytes INTEGER NOT NULL);
CREATE TABLE cgroup_tick(
  t_ms INTEGER PRIMARY KEY,
  memory_bytes INTEGER NOT NULL,
  memory_peak_bytes INTEGER,
  cpu_ns INTEGER,
  oom_kills INTEGER NOT NULL,
  memory_limit_hits INTEGER NOT NULL);
CREATE TABLE event(
  t_ms INTEGER NOT NULL,
  kind TEXT NOT NULL,
  process_id INTEGER REFERENCES process(id),
  text TEXT NOT NULL,
  source_id INTEGER REFERENCES log_source(id));
)" + log_tables_sql();
}

std::string log_tables_sql() {
  // Imported lines arrive out of time order relative to the recorder's own events,
  // and the viewer pages through a million of them by time: hence the index.
  // content_sha256 (of the file's bytes) came later within format 2: it is NULL for
  // logs added by an older canopy, and added to their table by the next import.
  return R"(
CREATE TABLE IF NOT EXISTS log_source(
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  format TEXT NOT NULL,
  added_ms INTEGER NOT NULL,
  events INTEGER NOT NULL,
  outside_span INTEGER NOT NULL,
  content_sha256 TEXT);
CREATE INDEX IF NOT EXISTS event_by_time ON event(t_ms);
)";
}

}  // namespace canopy::store
