// Which user types run and how many (scenario/type_mix.h, issue 42): Locust's
// rules for a count, counts per type by name, each worker's share, the order
// new users start in.
#include "scenario/type_mix.h"

#include <gtest/gtest.h>

#include <numeric>

namespace pacer::scenario {
namespace {

std::vector<UserType> plan_types() {
  UserType a{"A", 3, -1};
  UserType b{"B", 1, -1};
  UserType admin{"Admin", 1, 2};
  return {a, b, admin};
}

TEST(TypeMix, ACountFollowsTheFixedCountsThenTheWeights) {
  EXPECT_EQ(counts_by_rules(plan_types(), 10), (TypeCounts{6, 2, 2}));  // 2 admins first, then 3:1
  EXPECT_EQ(counts_by_rules(plan_types(), 1), (TypeCounts{0, 0, 1}));
  EXPECT_EQ(counts_by_rules(plan_types(), 0), (TypeCounts{0, 0, 0}));
  // Among the types allowed only (Locust's user_classes).
  EXPECT_EQ(counts_by_rules(plan_types(), 5, {false, true, false}), (TypeCounts{0, 5, 0}));
  EXPECT_EQ(counts_by_rules(plan_types(), 5, {false, false, true}), (TypeCounts{0, 0, 2})) << "a fixed count caps its type";
}

TEST(TypeMix, ARequestByNameResolvesOrSaysWhatIsWrong) {
  MixRequest counts;
  counts.counts = {{"B", 40}, {"A", 10}};
  EXPECT_EQ(*resolve_mix(plan_types(), counts), (TypeCounts{10, 40, 0}));
  MixRequest listed;
  listed.users = 8;
  listed.types = {"A", "B"};
  EXPECT_EQ(*resolve_mix(plan_types(), listed), (TypeCounts{6, 2, 0}));
  MixRequest unknown;
  unknown.users = 1;
  unknown.types = {"C"};
  auto refused = resolve_mix(plan_types(), unknown);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().message, "no user type is named 'C' (the types: A, B, Admin)");
  MixRequest twice;
  twice.counts = {{"A", 1}, {"A", 2}};
  EXPECT_FALSE(resolve_mix(plan_types(), twice));
  std::vector<UserType> same = plan_types();
  same[1].name = "A";
  MixRequest ambiguous;
  ambiguous.counts = {{"A", 1}};
  EXPECT_FALSE(resolve_mix(same, ambiguous));
}

TEST(TypeMix, TheWorkersSharesAddUpAndAChangeOfOneTypeMovesNoOtherTypesUsers) {
  const std::vector<int> room{50, 50, 50};
  const auto shares = [&](const TypeCounts& test) {
    std::vector<TypeCounts> out;
    for (int w = 0; w < 3; ++w) out.push_back(worker_share(test, w, 3, room));
    return out;
  };
  const auto before = shares({10, 7, 1});
  const auto after = shares({11, 7, 1});
  for (std::size_t t = 0; t < 3; ++t) {
    int sum = 0;
    for (const TypeCounts& s : after) sum += s[t];
    EXPECT_EQ(sum, (TypeCounts{11, 7, 1})[t]);
  }
  for (int w = 0; w < 3; ++w) {
    EXPECT_EQ(before[w][1], after[w][1]) << "type B's users stay where they are";
    EXPECT_EQ(before[w][2], after[w][2]);
  }
}

TEST(TypeMix, AWorkerPastItsSlotsGivesItsExcessToOneWithRoom) {
  // 2 of A and 1 of B over two workers of 2 and 1 slots: B starts at worker 1,
  // which then holds 2 of its 1 slot; one goes to worker 0.
  const std::vector<int> room{2, 1};
  const TypeCounts w0 = worker_share({2, 1}, 0, 2, room);
  const TypeCounts w1 = worker_share({2, 1}, 1, 2, room);
  EXPECT_EQ(std::accumulate(w0.begin(), w0.end(), 0), 2);
  EXPECT_EQ(std::accumulate(w1.begin(), w1.end(), 0), 1);
  EXPECT_EQ(w0[0] + w1[0], 2);
  EXPECT_EQ(w0[1] + w1[1], 1);
}

TEST(TypeMix, NewUsersStartFixedCountsFirstThenInterleavedByCount) {
  EXPECT_EQ(spawn_order(plan_types(), {3, 1, 2}), (std::vector<int>{2, 2, 0, 0, 1, 0}));
  EXPECT_EQ(spawn_order(plan_types(), {0, 2, 0}), (std::vector<int>{1, 1}));
  EXPECT_TRUE(spawn_order(plan_types(), {}).empty());
}

}  // namespace
}  // namespace pacer::scenario
