// One latency histogram per request name (src/stats/name_histograms.h).
#include "stats/name_histograms.h"

#include <gtest/gtest.h>

namespace pacer::stats {
namespace {

TEST(NameHistograms, PreparedNamesHaveTheirHistogramAndOthersAreMadeOnFirstRecord) {
  NameHistograms h;
  h.prepare(2);
  ASSERT_NE(h.find(0), nullptr);
  ASSERT_NE(h.find(1), nullptr);
  EXPECT_EQ(h.find(2), nullptr);
  const long before = Histogram::chunk_allocations_total();
  h.record_n(1, 1'000, 2);
  EXPECT_EQ(h.find(1)->total_count(), 2);
  h.record_n(1, 1'001, 1);  // the same range: nothing new
  EXPECT_EQ(Histogram::chunk_allocations_total() - before, 1);
  h.record_n(9, 5'000, 1);  // a name added during the run (a script's)
  ASSERT_NE(h.find(9), nullptr);
  EXPECT_EQ(h.find(9)->total_count(), 1);
  EXPECT_EQ(h.find(5), nullptr);  // the ids between have none until they record
  EXPECT_GE(h.size(), 10u);
}

TEST(NameHistograms, MergeAddsNameByNameAndMergeIntoAddsThemAllUp) {
  NameHistograms a;
  NameHistograms b;
  a.record_n(0, 1'000, 3);
  b.record_n(0, 2'000, 1);
  b.record_n(3, 7'000'000, 2);
  a.merge(b);
  EXPECT_EQ(a.find(0)->total_count(), 4);
  EXPECT_EQ(a.find(3)->total_count(), 2);
  EXPECT_EQ(a.find(3)->max(), b.find(3)->max());
  Histogram sum = Histogram::for_latency_ns();
  a.merge_into(sum);
  EXPECT_EQ(sum.total_count(), 6);
  EXPECT_EQ(sum.max(), a.find(3)->max());
}

TEST(NameHistograms, ResetZeroesTheCountsAndKeepsWhatWasMade) {
  NameHistograms h;
  h.record_n(2, 1'000, 5);
  const int chunks = h.find(2)->allocated_chunks();
  h.reset();
  ASSERT_NE(h.find(2), nullptr);
  EXPECT_EQ(h.find(2)->total_count(), 0);
  EXPECT_EQ(h.find(2)->allocated_chunks(), chunks);
  const long before = Histogram::chunk_allocations_total();
  h.record_n(2, 1'000, 1);  // a reused interval slot allocates nothing for a range it has seen
  EXPECT_EQ(Histogram::chunk_allocations_total(), before);
}

}  // namespace
}  // namespace pacer::stats
