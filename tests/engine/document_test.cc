// ab's document length (record/document.h): the first 2xx length of a name is
// published once across threads and every response compared with it, so the
// mismatch count is exact; the earliest worker's first response wins the merge.
#include "engine/record/document.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

namespace pacer::engine {
namespace {

TEST(DocumentLengths, ThreadsRacingToPublishCountMismatchesExactly) {
  constexpr int kThreads = 4;
  constexpr int kPerLength = 5000;  // each thread compares this many of each of three lengths
  DocumentLengths lengths(8);
  std::atomic<std::uint64_t> mismatches{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::uint64_t mine = 0;
      for (int i = 0; i < 3 * kPerLength; ++i) {
        if (lengths.differs(3, static_cast<std::uint64_t>(100 + (i + t) % 3))) ++mine;
      }
      mismatches += mine;
    });
  }
  for (auto& t : threads) t.join();
  const std::optional<std::uint64_t> published = lengths.of(3);
  ASSERT_TRUE(published.has_value());
  EXPECT_TRUE(*published >= 100 && *published <= 102) << *published;
  // Every response of the two other lengths, and none of the published one's.
  EXPECT_EQ(mismatches.load(), std::uint64_t{2} * kThreads * kPerLength);
  EXPECT_FALSE(lengths.of(2).has_value());   // a name without a 2xx response has none
  EXPECT_FALSE(lengths.differs(99, 1));      // past the name limit: never counted
  EXPECT_FALSE(lengths.differs(0, 0));       // 0 bytes is a length like any other
  EXPECT_TRUE(lengths.differs(0, 1));
}

TEST(FirstResponse, MergeKeepsTheEarliestResponseAndTheEarliestDocument) {
  FirstResponse a;
  a.response_ns = 50;
  a.server = "late";
  a.document_ns = 10;
  a.document_name = 1;
  FirstResponse b;
  b.response_ns = 20;
  b.server = "early";
  b.document_ns = 30;
  b.document_name = 2;
  FirstResponse none;
  FirstResponse merged;
  merged.merge(a);
  merged.merge(none);
  merged.merge(b);
  EXPECT_EQ(merged.response_ns, 20);
  EXPECT_EQ(merged.server, "early");
  EXPECT_EQ(merged.document_ns, 10);
  EXPECT_EQ(merged.document_name, 1u);
}

}  // namespace
}  // namespace pacer::engine
