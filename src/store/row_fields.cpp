#include "store/row_fields.h"

#include "store/reader.h"

namespace canopy::store {

void bind_value(sqlite3_stmt* s, int parameter, int64_t value) { sqlite3_bind_int64(s, parameter, value); }

void bind_value(sqlite3_stmt* s, int parameter, const std::optional<int64_t>& value) {
  bind_optional(s, parameter, value);
}

void bind_value(sqlite3_stmt* s, int parameter, bool value) { sqlite3_bind_int(s, parameter, value ? 1 : 0); }

void bind_value(sqlite3_stmt* s, int parameter, const std::string& value) { bind_text(s, parameter, value); }

void bind_value(sqlite3_stmt* s, int parameter, const std::vector<std::string>& value) {
  bind_text(s, parameter, json_string_array(value));
}

void read_value(sqlite3_stmt* s, int column, int64_t& value) { value = sqlite3_column_int64(s, column); }

void read_value(sqlite3_stmt* s, int column, std::optional<int64_t>& value) { value = column_optional(s, column); }

void read_value(sqlite3_stmt* s, int column, bool& value) { value = sqlite3_column_int(s, column) != 0; }

void read_value(sqlite3_stmt* s, int column, std::string& value) { value = column_text(s, column); }

void read_value(sqlite3_stmt* s, int column, std::vector<std::string>& value) {
  value = parse_json_string_array(column_text(s, column));
}

}  // namespace canopy::store
