// analyze::StackTree: stacks merged by their common prefixes, totals summed up.
#include "analyze/stack_tree.h"

#include <gtest/gtest.h>

namespace canopy::analyze {
namespace {

TEST(StackTree, MergesCommonPrefixesAndSumsTotals) {
  StackTree tree;
  const int32_t hot = tree.add({"main", "work", "hot"});
  const int32_t cold = tree.add({"main", "work", "cold"});
  const int32_t work = tree.add({"main", "work"});
  EXPECT_EQ(tree.add({"main", "work", "hot"}), hot);
  EXPECT_EQ(tree.add({}), 0);  // an empty stack is the root's
  const int32_t other_hot = tree.add({"other", "hot"});  // the same name under another caller: its own node
  EXPECT_NE(other_hot, hot);
  // all, main, work, hot, cold, other, other/hot
  ASSERT_EQ(tree.nodes().size(), 7u);
  EXPECT_EQ(tree.nodes()[static_cast<size_t>(hot)].name, "hot");
  EXPECT_EQ(tree.nodes()[static_cast<size_t>(hot)].parent, work);
  for (size_t i = 1; i < tree.nodes().size(); ++i) {
    EXPECT_LT(tree.nodes()[i].parent, static_cast<int32_t>(i)) << "a parent comes before its children";
  }

  std::vector<int64_t> self(tree.nodes().size(), 0);
  self[static_cast<size_t>(hot)] = 70;
  self[static_cast<size_t>(cold)] = 30;
  self[static_cast<size_t>(work)] = 5;
  self[static_cast<size_t>(other_hot)] = 2;
  self[0] = 1;
  const std::vector<int64_t> total = tree.totals(self);
  EXPECT_EQ(total[0], 108);
  EXPECT_EQ(total[static_cast<size_t>(work)], 105);
  EXPECT_EQ(total[static_cast<size_t>(tree.nodes()[static_cast<size_t>(work)].parent)], 105);  // main
  EXPECT_EQ(total[static_cast<size_t>(hot)], 70);
  EXPECT_EQ(total[static_cast<size_t>(tree.nodes()[static_cast<size_t>(other_hot)].parent)], 2);  // other

  const auto children = tree.children();
  EXPECT_EQ(children[static_cast<size_t>(work)], (std::vector<int32_t>{hot, cold}));
  EXPECT_EQ(children[0].size(), 2u);  // main, other
}

}  // namespace
}  // namespace canopy::analyze
