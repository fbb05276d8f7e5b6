// Every string of a JSON document made printable before it is written
// (src/report/printable_json.h): a server's or a script's bytes cannot stop the
// serialiser (issue 44).
#include "report/printable_json.h"

#include <gtest/gtest.h>

namespace pacer::report {
namespace {

TEST(PrintableJson, BytesThatAreNotUtf8AndControlsBecomeQuestionMarksInValuesAndKeys) {
  nlohmann::ordered_json doc = {{"text", std::string("bad \xff here\x1b[2J")},
                                {"list", {std::string("a\0b", 3), "caf\xc3\xa9"}},
                                {"nested", {{std::string("k\xfe"), 1}, {"fine", "ok"}}}};
  EXPECT_THROW((void)nlohmann::ordered_json(doc).dump(), nlohmann::json::type_error);
  EXPECT_EQ(dump_printable(doc, -1),
            "{\"text\":\"bad ? here?[2J\",\"list\":[\"a?b\",\"caf\xc3\xa9\"],\"nested\":{\"k?\":1,\"fine\":\"ok\"}}");
}

TEST(PrintableJson, APrintableDocumentIsWrittenAsDumpWritesIt) {
  nlohmann::ordered_json doc = {{"b", 1}, {"a", {1.5, "x"}}, {"c", nullptr}};
  const std::string expected = doc.dump(2);
  EXPECT_EQ(dump_printable(doc, 2), expected);
}

}  // namespace
}  // namespace pacer::report
