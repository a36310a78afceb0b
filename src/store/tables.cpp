#include "store/tables.h"

namespace canopy::store {
namespace {

std::string parameter(int column) { return "?" + std::to_string(column + 1); }

}  // namespace

std::string create_table_sql(const Table& table) {
  std::string sql = std::string("CREATE TABLE ") + (table.if_not_exists ? "IF NOT EXISTS " : "") + table.name + "(";
  const char* separator = table.one_line ? ", " : ",\n  ";
  for (size_t i = 0; i < table.columns.size(); ++i) {
    sql += i == 0 ? (table.one_line ? "" : "\n  ") : separator;
    sql += std::string(table.columns[i].name) + " " + table.columns[i].definition;
  }
  return sql + ")" + table.options + ";\n";
}

std::string insert_sql(const Table& table, const char* verb) {
  std::string params;
  for (size_t i = 0; i < table.columns.size(); ++i) {
    params += (i == 0 ? "" : ", ") + parameter(static_cast<int>(i));
  }
  return std::string(verb) + " INTO " + table.name + "(" + column_list(table) + ") VALUES(" + params + ")";
}

std::string update_sql(const Table& table, std::span<const int> set, int where) {
  std::string sql = std::string("UPDATE ") + table.name + " SET ";
  for (size_t i = 0; i < set.size(); ++i) {
    sql += (i == 0 ? "" : ", ") + std::string(table.columns[set[i]].name) + " = " + parameter(set[i]);
  }
  return sql + " WHERE " + table.columns[where].name + " = " + parameter(where);
}

std::string column_list(const Table& table, std::span<const std::pair<int, const char*>> instead) {
  std::string list;
  for (size_t i = 0; i < table.columns.size(); ++i) {
    const char* expression = table.columns[i].name;
    for (auto [column, replacement] : instead) {
      if (column == static_cast<int>(i)) {
        expression = replacement;
      }
    }
    list += (i == 0 ? "" : ", ") + std::string(expression);
  }
  return list;
}

}  // namespace canopy::store
