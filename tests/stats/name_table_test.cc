// Request names (src/stats/name_table.h): dense ids, the cap and "(other)",
// default names, and names made printable for reports.
#include "stats/name_table.h"

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

namespace pacer::stats {
namespace {

TEST(NameTable, NamesGetDenseIdsAndTheSameNameTheSameId) {
  NameTable t(10);
  EXPECT_EQ(t.intern("GET /a"), 0u);
  EXPECT_EQ(t.intern("GET /b"), 1u);
  EXPECT_EQ(t.intern("GET /a"), 0u);
  EXPECT_EQ(t.size(), 2u);
  EXPECT_EQ(t.name(1), "GET /b");
  EXPECT_EQ(t.lookup("GET /b"), 1u);
  EXPECT_EQ(t.lookup("GET /c"), t.other_id());
}

TEST(NameTable, NamesPastTheCapCountUnderOther) {
  NameTable t(2);
  t.intern("a");
  t.intern("b");
  EXPECT_FALSE(t.overflowed());
  EXPECT_EQ(t.intern("c"), t.other_id());
  EXPECT_EQ(t.intern("d"), t.other_id());
  EXPECT_TRUE(t.overflowed());
  EXPECT_EQ(t.name(t.other_id()), "(other)");
  EXPECT_EQ(t.size(), 2u);
  EXPECT_EQ(t.intern("a"), 0u);  // names already in keep their id
}

TEST(NameTable, ThreadsInterningTheSameNamesAgreeOnTheirIds) {
  NameTable t(1000);
  std::vector<std::vector<NameId>> seen(4);
  std::vector<std::thread> threads;
  for (int w = 0; w < 4; ++w) {
    threads.emplace_back([&t, &seen, w] {
      for (int i = 0; i < 500; ++i) seen[static_cast<std::size_t>(w)].push_back(t.intern("n" + std::to_string(i)));
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(t.size(), 500u);
  for (int w = 1; w < 4; ++w) EXPECT_EQ(seen[static_cast<std::size_t>(w)], seen[0]);
  for (int i = 0; i < 500; ++i) EXPECT_EQ(t.name(seen[0][static_cast<std::size_t>(i)]), "n" + std::to_string(i));
}

TEST(NameTable, LongNamesAreCutAtACharacterBoundary) {
  NameTable t(4);
  const std::string long_name = std::string(255, 'a') + "\xC3\xA9" + "tail";  // é straddles byte 256
  const NameId id = t.intern(long_name);
  EXPECT_EQ(t.name(id), std::string(255, 'a'));
  EXPECT_EQ(t.intern(std::string(255, 'a') + "\xC3\xA9" + "other"), id);
}

TEST(NameTable, DefaultNamesLeaveTheQueryOut) {
  EXPECT_EQ(default_request_name("GET", "/item?id=1"), "GET /item");
  EXPECT_EQ(default_request_name("POST", "/"), "POST /");
}

TEST(NameTable, PrintableNamesReplaceInvalidUtf8AndControls) {
  EXPECT_EQ(printable_name("caf\xC3\xA9"), "caf\xC3\xA9");
  EXPECT_EQ(printable_name("a\xFF" "b\x01"), "a?b?");
  EXPECT_EQ(printable_name("\xED\xA0\x80"), "???");  // a surrogate
}

// Issue 44 (19): a right-to-left override or an isolate would let a server reorder the terminal's text.
TEST(NameTable, PrintableNamesReplaceBidirectionalControls) {
  EXPECT_EQ(printable_name("a\u202Eb\u2066c\u2069d"), "a?b?c?d");
  EXPECT_EQ(printable_name("\u200E\u200F\u202A\u061C"), "????");
  EXPECT_EQ(printable_name("\u2010\u2065\u202F\u00E9"), "\u2010\u2065\u202F\u00E9");  // neighbours stay
}

}  // namespace
}  // namespace pacer::stats
