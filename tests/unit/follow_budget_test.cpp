// The budget of a follower's passes over the whole recording (web/view_follow.h): on a
// clock the test moves, so the figures are exact.
#include <gtest/gtest.h>

#include <algorithm>

#include "web/view_follow.h"

namespace canopy::web {
namespace {

constexpr int64_t kSecondUs = 1000 * 1000;

TEST(FollowBudget, FullAtFirstThenPaidBackByTimePassing) {
  FollowBudget budget;
  ASSERT_TRUE(budget.allows(0));
  // A 60 ms pass costs 1.2 s of time passed, 0.2 s more than is saved at first.
  budget.spend(60 * 1000);
  EXPECT_FALSE(budget.allows(0));
  EXPECT_FALSE(budget.allows(kSecondUs / 5));
  EXPECT_TRUE(budget.allows(kSecondUs / 5 + 1));
}

TEST(FollowBudget, SavesUpForAtMostItsLimit) {
  FollowBudget budget;
  ASSERT_TRUE(budget.allows(0));
  budget.spend(0);
  // An hour idle saves no more than FollowBudget::kSavesMs of time passed.
  ASSERT_TRUE(budget.allows(3600 * kSecondUs));
  budget.spend(FollowBudget::kSavesMs * 1000 / FollowBudget::kShare);
  EXPECT_FALSE(budget.allows(3600 * kSecondUs));
  EXPECT_TRUE(budget.allows(3600 * kSecondUs + 1));
}

TEST(FollowBudget, PassesTakeAtMostTheirShareOfTheTime) {
  // Four passes of 30 ms, tried in turn at each update, one update a second for ten
  // minutes: alone, each could take a twentieth of the time; together they may not.
  FollowBudget budget;
  constexpr int64_t kPassUs = 30 * 1000;
  constexpr int64_t kSeconds = 600;
  int64_t spent_us = 0;
  for (int64_t second = 0; second < kSeconds; ++second) {
    const int64_t now_us = second * kSecondUs;
    for (int pass = 0; pass < 4 && budget.allows(now_us); ++pass) {
      budget.spend(kPassUs);
      spent_us += kPassUs;
    }
  }
  // What was saved at first, and one pass that overdrew at the end.
  const int64_t most_us = kSeconds * kSecondUs / FollowBudget::kShare + FollowBudget::kSavesMs * 1000 / FollowBudget::kShare + kPassUs;
  EXPECT_LE(spent_us, most_us);
  // And the budget is used, not just bounded: less than one pass short of it.
  EXPECT_GE(spent_us, kSeconds * kSecondUs / FollowBudget::kShare - kPassUs);
}

}  // namespace
}  // namespace canopy::web
