#include "store/row_fields.h"

#include <algorithm>

#include "common/text.h"
#include "store/reader.h"

namespace canopy::store {

std::string id_list_text(const std::vector<int64_t>& ids) {
  std::string text;
  for (int64_t id : ids) {
    text += (text.empty() ? "" : ",") + std::to_string(id);
  }
  return text;
}

std::optional<std::vector<int64_t>> parse_id_list(std::string_view text) {
  std::vector<int64_t> ids;
  if (text.empty()) {
    return ids;
  }
  for (size_t start = 0;;) {
    size_t comma = std::min(text.find(',', start), text.size());
    auto id = parse_int<int64_t>(text.substr(start, comma - start));
    if (!id) {
      return std::nullopt;
    }
    ids.push_back(*id);
    if (comma == text.size()) {
      return ids;
    }
    start = comma + 1;
  }
}

void bind_value(sqlite3_stmt* s, int parameter, int64_t value) { sqlite3_bind_int64(s, parameter, value); }

void bind_value(sqlite3_stmt* s, int parameter, const std::optional<int64_t>& value) {
  bind_optional(s, parameter, value);
}

void bind_value(sqlite3_stmt* s, int parameter, bool value) { sqlite3_bind_int(s, parameter, value ? 1 : 0); }

void bind_value(sqlite3_stmt* s, int parameter, double value) { sqlite3_bind_double(s, parameter, value); }

void bind_value(sqlite3_stmt* s, int parameter, const std::string& value) { bind_text(s, parameter, value); }

void bind_value(sqlite3_stmt* s, int parameter, const std::optional<std::string>& value) {
  if (value) {
    bind_text(s, parameter, *value);
  } else {
    sqlite3_bind_null(s, parameter);
  }
}

void bind_value(sqlite3_stmt* s, int parameter, const std::vector<std::string>& value) {
  bind_text(s, parameter, json_string_array(value));
}

void read_value(sqlite3_stmt* s, int column, int64_t& value) { value = sqlite3_column_int64(s, column); }

void read_value(sqlite3_stmt* s, int column, std::optional<int64_t>& value) { value = column_optional(s, column); }

void read_value(sqlite3_stmt* s, int column, bool& value) { value = sqlite3_column_int(s, column) != 0; }

void read_value(sqlite3_stmt* s, int column, double& value) { value = sqlite3_column_double(s, column); }

void read_value(sqlite3_stmt* s, int column, std::string& value) { value = column_text(s, column); }

void read_value(sqlite3_stmt* s, int column, std::optional<std::string>& value) {
  value = sqlite3_column_type(s, column) == SQLITE_NULL ? std::nullopt : std::optional(column_text(s, column));
}

void read_value(sqlite3_stmt* s, int column, std::vector<std::string>& value) {
  value = parse_json_string_array(column_text(s, column));
}

void bind_value(sqlite3_stmt* s, int parameter, const std::vector<int64_t>& value) {
  bind_text(s, parameter, id_list_text(value));
}

void read_value(sqlite3_stmt* s, int column, std::vector<int64_t>& value) {
  value = parse_id_list(column_text(s, column)).value_or(std::vector<int64_t>());
}

}  // namespace canopy::store
