#include "store/schema.h"

#include "store/heap_tables.h"
#include "store/tables.h"

namespace canopy::store {

std::string schema_sql() {
  std::string sql = "\n";
  for (const Table* table : kTables) {
    if (table != &kLogSourceTable) {
      sql += create_table_sql(*table);
    }
  }
  return sql + log_tables_sql();
}

std::string log_tables_sql() {
  // Imported lines arrive out of time order relative to the recorder's own events,
  // and the viewer pages through a million of them by time: hence the index.
  return "\n" + create_table_sql(kLogSourceTable) + "CREATE INDEX IF NOT EXISTS event_by_time ON event(t_ms);\n";
}

std::string heap_tables_sql() {
  std::string sql = "\n";
  for (const Table* table : kHeapTables) {
    sql += create_table_sql(*table);
  }
  return sql;
}

std::string cpu_tables_sql() { return "\n" + create_table_sql(kCpuSampleTable); }

}  // namespace canopy::store
