// RFC 3986 section 5 reference resolution (proto/uri_reference.h), checked
// against every example of section 5.4.
#include "proto/uri_reference.h"

#include <gtest/gtest.h>

#include <utility>
#include <vector>

namespace pacer::proto {
namespace {

std::string resolved(std::string_view base, std::string_view ref) {
  std::string out;
  resolve_reference(split_uri(base), split_uri(ref), out);
  return out;
}

constexpr std::string_view kBase = "http://a/b/c/d;p?q";

TEST(UriReference, NormalExamplesOfSection541) {
  const std::vector<std::pair<const char*, const char*>> examples = {
      {"g:h", "g:h"},         {"g", "http://a/b/c/g"},      {"./g", "http://a/b/c/g"},
      {"g/", "http://a/b/c/g/"}, {"/g", "http://a/g"},      {"//g", "http://g"},
      {"?y", "http://a/b/c/d;p?y"}, {"g?y", "http://a/b/c/g?y"}, {"#s", "http://a/b/c/d;p?q#s"},
      {"g#s", "http://a/b/c/g#s"}, {"g?y#s", "http://a/b/c/g?y#s"}, {";x", "http://a/b/c/;x"},
      {"g;x", "http://a/b/c/g;x"}, {"g;x?y#s", "http://a/b/c/g;x?y#s"}, {"", "http://a/b/c/d;p?q"},
      {".", "http://a/b/c/"},   {"./", "http://a/b/c/"},      {"..", "http://a/b/"},
      {"../", "http://a/b/"},   {"../g", "http://a/b/g"},     {"../..", "http://a/"},
      {"../../", "http://a/"},  {"../../g", "http://a/g"},
  };
  for (const auto& [ref, want] : examples) EXPECT_EQ(resolved(kBase, ref), want) << ref;
}

TEST(UriReference, AbnormalExamplesOfSection542) {
  const std::vector<std::pair<const char*, const char*>> examples = {
      {"../../../g", "http://a/g"},     {"../../../../g", "http://a/g"},  {"/./g", "http://a/g"},
      {"/../g", "http://a/g"},          {"g.", "http://a/b/c/g."},        {".g", "http://a/b/c/.g"},
      {"g..", "http://a/b/c/g.."},      {"..g", "http://a/b/c/..g"},      {"./../g", "http://a/b/g"},
      {"./g/.", "http://a/b/c/g/"},     {"g/./h", "http://a/b/c/g/h"},    {"g/../h", "http://a/b/c/h"},
      {"g;x=1/./y", "http://a/b/c/g;x=1/y"}, {"g;x=1/../y", "http://a/b/c/y"},
      {"g?y/./x", "http://a/b/c/g?y/./x"}, {"g?y/../x", "http://a/b/c/g?y/../x"},
      {"g#s/./x", "http://a/b/c/g#s/./x"}, {"g#s/../x", "http://a/b/c/g#s/../x"},
      {"http:g", "http:g"},  // the strict parser's answer
  };
  for (const auto& [ref, want] : examples) EXPECT_EQ(resolved(kBase, ref), want) << ref;
}

TEST(UriReference, DotSegmentsOfSection524) {
  std::string a = "/a/b/c/./../../g";
  remove_dot_segments(a);
  EXPECT_EQ(a, "/a/g");
  std::string b = "mid/content=5/../6";
  remove_dot_segments(b);
  EXPECT_EQ(b, "mid/6");
  std::string c = "keep/dir/../../../../etc/passwd";
  remove_dot_segments(c, 5);  // only from offset 5
  EXPECT_EQ(c, "keep//etc/passwd");
}

TEST(UriReference, SchemesAreOnlySchemesBeforeAnySlash) {
  EXPECT_TRUE(split_uri("javascript:alert(1)").has_scheme);
  EXPECT_EQ(split_uri("javascript:alert(1)").scheme, "javascript");
  EXPECT_FALSE(split_uri("/a:b").has_scheme);
  EXPECT_FALSE(split_uri("1x:y").has_scheme);
  EXPECT_EQ(split_uri("//h:1/p?q#f").authority, "h:1");
}

}  // namespace
}  // namespace pacer::proto
