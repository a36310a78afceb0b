// The recording's tables (see recording.h for their invariants).
#pragma once

#include <string>

namespace canopy::store {

// CREATE TABLE statements for a new recording.
std::string schema_sql();

// The tables and index format 2 added for imported logs, idempotent (IF NOT EXISTS):
// part of schema_sql(), and run alone to upgrade a format 1 recording.
std::string log_tables_sql();

// The heap profile's tables (heap_tables.h), idempotent (IF NOT EXISTS): not part of
// schema_sql(), run by Writer::enable_heap() for a recording made with --heap.
std::string heap_tables_sql();

// The CPU profile's sample table, idempotent: run by Writer::enable_cpu_profile(),
// after the heap tables, whose stacks its samples name.
std::string cpu_tables_sql();

}  // namespace canopy::store
