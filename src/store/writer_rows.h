// How the writer binds and steps its waiting rows (store/writer.h), for the files that
// write them: writer.cpp, writer_heap.cpp and writer_cpu.cpp.
#pragma once

#include "store/row_fields.h"
#include "store/writer.h"

namespace canopy::store {

template <typename Rows>
void Writer::insert_rows(Rows& rows, sqlite3_stmt* insert) {
  for (const auto& row : rows) {
    bind_all_fields(insert, row);
    step(insert);
  }
  rows.clear();
}

template <typename Row>
void Writer::update_rows(std::vector<Row>& rows, sqlite3_stmt* update, int id_column, std::span<const int> columns) {
  for (const Row& row : rows) {
    bind_field(update, row, id_column);
    bind_fields(update, row, columns);
    step(update);
  }
  rows.clear();
}

}  // namespace canopy::store
