// io/send_tally.h: how many completions the io_uring engine's wait waits for.
#include "io/send_tally.h"

#include <gtest/gtest.h>

namespace pacer::io {
namespace {

TEST(SendTally, AWaitWaitsForTheSmallSendsQueuedAndOneMore) {
  SendTally tally;
  EXPECT_EQ(tally.wait_for(), 1U);  // nothing queued: the first completion
  tally.queued(100);
  tally.queued(SendTally::kInlineBytes);
  EXPECT_EQ(tally.wait_for(), 3U);
  tally.reset();  // they left with that wait
  EXPECT_EQ(tally.wait_for(), 1U);
}

TEST(SendTally, AWaitWaitsForNoMoreThanTheMostWaitedFor) {
  // Past it the kernel would run as many receives as the wait waits for, each
  // taking a provided buffer; the sends' own completions end such a wait.
  SendTally tally;
  for (std::uint32_t i = 0; i < SendTally::kMostWaitedFor + 10; ++i) tally.queued(100);
  EXPECT_EQ(tally.wait_for(), SendTally::kMostWaitedFor);
}

TEST(SendTally, ALargeSendOrAWriteWaitingBehindASendWaitsForTheFirstCompletion) {
  SendTally tally;
  tally.queued(100);
  tally.queued(SendTally::kInlineBytes + 1);  // it may end only when the server reads
  EXPECT_EQ(tally.wait_for(), 1U);
  tally.reset();
  EXPECT_EQ(tally.wait_for(), 1U);
  tally.queued(100);
  EXPECT_EQ(tally.wait_for(), 2U);
  tally.write_waits();  // bytes wait behind a send in flight: its completion lets them go
  tally.write_waits();
  EXPECT_EQ(tally.wait_for(), 1U);
  tally.write_done();
  EXPECT_EQ(tally.wait_for(), 1U);  // one still waits
  tally.write_done();
  EXPECT_EQ(tally.wait_for(), 2U);
  tally.write_done();  // more done than waited (never expected): no underflow
  EXPECT_EQ(tally.wait_for(), 2U);
}

}  // namespace
}  // namespace pacer::io
