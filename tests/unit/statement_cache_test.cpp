// The reader's statements are prepared once and run again (store/sqlite.h): a statement
// comes back reset and unbound, and one asked for while its twin is still stepping
// (a nested read of the same SQL) is a statement of its own.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include "store/sqlite.h"

namespace canopy::store {
namespace {

class StatementCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(":memory:", &db), SQLITE_OK);
    db_ = ScopedDb(db);
    ASSERT_TRUE(exec_sql(db, "CREATE TABLE n (v INTEGER); INSERT INTO n VALUES (1), (2), (3);").ok());
  }
  sqlite3* db() { return db_.get(); }

  ScopedDb db_;
};

constexpr const char* kAbove = "SELECT v FROM n WHERE v > ?1 ORDER BY v";

TEST_F(StatementCacheTest, ComesBackPreparedResetAndUnbound) {
  StatementCache cache;
  sqlite3_stmt* first = nullptr;
  {
    auto held = cache.get(db(), kAbove);
    ASSERT_TRUE(held.ok());
    first = held->get();
    bind_parameters(first, {int64_t{1}});
    ASSERT_EQ(sqlite3_step(first), SQLITE_ROW);
    EXPECT_EQ(sqlite3_column_int64(first, 0), 2);
  }  // dropped halfway through its rows
  auto again = cache.get(db(), kAbove);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->get(), first) << "prepared once";
  // Reset, and its parameter NULL again: `v > NULL` holds for no row.
  EXPECT_EQ(sqlite3_step(again->get()), SQLITE_DONE);
}

TEST_F(StatementCacheTest, ANestedReadOfTheSameSqlGetsAStatementOfItsOwn) {
  StatementCache cache;
  auto outer = cache.get(db(), kAbove);
  ASSERT_TRUE(outer.ok());
  bind_parameters(outer->get(), {int64_t{0}});
  ASSERT_EQ(sqlite3_step(outer->get()), SQLITE_ROW);
  {
    auto inner = cache.get(db(), kAbove);
    ASSERT_TRUE(inner.ok());
    EXPECT_NE(inner->get(), outer->get());
    bind_parameters(inner->get(), {int64_t{2}});
    ASSERT_EQ(sqlite3_step(inner->get()), SQLITE_ROW);
    EXPECT_EQ(sqlite3_column_int64(inner->get(), 0), 3);
  }
  // The outer read goes on where it was.
  ASSERT_EQ(sqlite3_step(outer->get()), SQLITE_ROW);
  EXPECT_EQ(sqlite3_column_int64(outer->get(), 0), 2);
}

TEST_F(StatementCacheTest, TextAndIntegerParametersBindInOrder) {
  StatementCache cache;
  auto held = cache.get(db(), "SELECT ?1 || '-' || ?2");
  ASSERT_TRUE(held.ok());
  bind_parameters(held->get(), {std::string_view("rows"), int64_t{42}});
  ASSERT_EQ(sqlite3_step(held->get()), SQLITE_ROW);
  EXPECT_EQ(column_text(held->get(), 0), "rows-42");
}

TEST_F(StatementCacheTest, BadSqlIsAnErrorNotACachedStatement) {
  StatementCache cache;
  EXPECT_FALSE(cache.get(db(), "SELECT FROM nowhere").ok());
  EXPECT_FALSE(cache.get(db(), "SELECT FROM nowhere").ok());
}

}  // namespace
}  // namespace canopy::store
