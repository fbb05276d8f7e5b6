// Targets files (src/targets/): both formats, URL resolution against the
// command line's URL, and every malformed case failing with FILE:LINE and why.
#include "targets/target_file.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "../support/text_fd.h"
#include "cli/units.h"

namespace pacer::targets {
namespace {

using pacer::testing::TextFd;

Target base_url(const char* url = "http://127.0.0.1:8080/base/page?x=1") { return *cli::parse_url(url); }

TargetSource source(std::optional<Target> base = base_url()) {
  TargetSource s;
  s.name = "t.txt";
  s.base = std::move(base);
  return s;
}

// The error message of parsing `text`, or "" if it parsed.
std::string error_of(std::string_view text, const TargetSource& s = source()) {
  auto parsed = parse_targets(text, s);
  if (parsed) return "";
  EXPECT_EQ(parsed.error().kind, ErrorKind::kBadInput);
  return parsed.error().message;
}

// A directory with files, removed with the object.
class TempDir {
 public:
  TempDir() {
    char name[] = "/tmp/pacer_targets_XXXXXX";
    path_ = ::mkdtemp(name);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  std::string write(const std::string& name, const std::string& text) const {
    const std::string p = path_ + "/" + name;
    std::ofstream(p, std::ios::binary) << text;
    return p;
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

TEST(TargetFile, TextTargetsHaveMethodPathHeadersAndComments) {
  auto list = parse_targets("# items\nGET /items?id=1\nX-A: 1\nX-B:  two words \n\n  # next\nDELETE /items/7\n",
                            source());
  ASSERT_TRUE(list) << list.error().message;
  ASSERT_EQ(list->targets.size(), 2u);
  const RequestTarget& a = list->targets[0];
  EXPECT_EQ(a.method, "GET");
  EXPECT_EQ(a.path, "/items?id=1");
  ASSERT_EQ(a.headers.size(), 2u);
  EXPECT_EQ(a.headers[1].name, "X-B");
  EXPECT_EQ(a.headers[1].value, "two words");
  EXPECT_EQ(a.where, "t.txt:2");
  EXPECT_EQ(list->targets[1].method, "DELETE");
  EXPECT_EQ(list->targets[1].where, "t.txt:7");
  EXPECT_EQ(list->origin.port, 8080);
}

TEST(TargetFile, ATargetLineEndsThePreviousTargetWithoutABlankLine) {
  auto list = parse_targets("GET /a\r\nGET /b\r\n", source());
  ASSERT_TRUE(list) << list.error().message;
  ASSERT_EQ(list->targets.size(), 2u);
  EXPECT_EQ(list->targets[1].path, "/b");
}

TEST(TargetFile, RelativeAndAbsoluteUrlsResolveAgainstTheCommandLinesUrl) {
  auto list = parse_targets("GET other?q=2\n\nGET ?only=query\n\nGET http://127.0.0.1:8080/abs#frag\n", source());
  ASSERT_TRUE(list) << list.error().message;
  EXPECT_EQ(list->targets[0].path, "/base/other?q=2");
  EXPECT_EQ(list->targets[1].path, "/base/page?only=query");
  EXPECT_EQ(list->targets[2].path, "/abs");
}

TEST(TargetFile, ReferencesLoseTheirDotSegmentsAsRfc3986Says) {
  auto list = parse_targets(
      "GET ../../etc/passwd\n\nGET /a/b/../c/./d\n\nGET http://127.0.0.1:8080/x/../y?q=../z\n\nGET .\n", source());
  ASSERT_TRUE(list) << list.error().message;
  EXPECT_EQ(list->targets[0].path, "/etc/passwd");  // against /base/page
  EXPECT_EQ(list->targets[1].path, "/a/c/d");
  EXPECT_EQ(list->targets[2].path, "/y?q=../z");  // the query is left as it is
  EXPECT_EQ(list->targets[3].path, "/base/");
  EXPECT_NE(error_of("GET javascript:alert(1)\n").find("is not an http:// or https:// URL"), std::string::npos);
}

// Found by the targets_file fuzzer: an absolute URL's path "//h/b" is a path,
// not a reference naming a host h (the target had been "h/b", no leading '/').
TEST(TargetFile, AnAbsoluteUrlsPathThatStartsWithTwoSlashesStaysAPath) {
  auto list = parse_targets("GET http://127.0.0.1:8080//h/./b?x#f\n\nGET http://127.0.0.1:8080\n", source());
  ASSERT_TRUE(list) << list.error().message;
  EXPECT_EQ(list->targets[0].path, "//h/b?x");
  EXPECT_EQ(list->targets[1].path, "/");
}

TEST(TargetFile, ASecondOriginFailsNamingBothAndTheLine) {
  const std::string e = error_of("GET /a\n\nGET http://127.0.0.1:9090/b\n");
  EXPECT_NE(e.find("t.txt:3:"), std::string::npos) << e;
  EXPECT_NE(e.find("http://127.0.0.1:9090"), std::string::npos) << e;
  EXPECT_NE(e.find("http://127.0.0.1:8080"), std::string::npos) << e;
}

TEST(TargetFile, WithoutACommandLineUrlTheFirstAbsoluteUrlIsTheOrigin) {
  auto list = parse_targets("GET http://localhost:81/x\n\nPOST /y\n", source(std::nullopt));
  ASSERT_TRUE(list) << list.error().message;
  EXPECT_EQ(list->origin.host, "localhost");
  EXPECT_EQ(list->targets[1].path, "/y");
  const std::string e = error_of("GET /y\n", source(std::nullopt));
  EXPECT_NE(e.find("t.txt:1: '/y' is a relative URL"), std::string::npos) << e;
}

// Issue 31: docs/targets.md's own example starts with a path, its absolute URL later.
TEST(TargetFile, APathBeforeTheFirstAbsoluteUrlResolvesAgainstIt) {
  auto list = parse_targets("# comment\nGET /api/items?id=1\nX-Account: 7\n\nPOST http://127.0.0.1:8080/api/orders\n",
                            source(std::nullopt));
  ASSERT_TRUE(list) << list.error().message;
  EXPECT_EQ(list->origin.port, 8080);
  EXPECT_EQ(list->targets[0].path, "/api/items?id=1");
  auto jsonl = parse_targets("{\"url\":\"/a\"}\n{\"url\":\"http://localhost:81/b\"}\n", source(std::nullopt));
  ASSERT_TRUE(jsonl) << jsonl.error().message;
  EXPECT_EQ(jsonl->origin.host, "localhost");
  EXPECT_EQ(jsonl->targets[0].path, "/a");
}

TEST(TargetFile, AnUnknownMethodFails) {
  const std::string e = error_of("\nFETCH /a\n");
  EXPECT_NE(e.find("t.txt:2: unknown method 'FETCH'"), std::string::npos) << e;
}

TEST(TargetFile, AHeaderLineWithoutAColonFails) {
  const std::string e = error_of("GET /a\nX-Header value\n");
  EXPECT_NE(e.find("t.txt:2: header line without a colon"), std::string::npos) << e;
}

TEST(TargetFile, AnUnreadableBodyFileFails) {
  const std::string e = error_of("POST /a\n@/nonexistent/pacer/body.json\n");
  EXPECT_NE(e.find("t.txt:2: cannot read the body file '/nonexistent/pacer/body.json'"), std::string::npos) << e;
}

TEST(TargetFile, ALineAfterTheBodyFails) {
  TempDir dir;
  const std::string body = dir.write("b", "x");
  const std::string e = error_of("POST /a\n@" + body + "\nX-A: 1\n");
  EXPECT_NE(e.find("t.txt:3: a line after the @body line"), std::string::npos) << e;
}

TEST(TargetFile, BodyFilesAreReadRelativeToTheTargetsFile) {
  TempDir dir;
  dir.write("order.json", "{\"n\":1}");
  const std::string file = dir.write("targets.txt", "POST /orders\nContent-Type: application/json\n@order.json\n");
  const TextFd no_stdin("");
  auto list = read_targets(file, no_stdin.get(), base_url(), kDefaultMaxRequestBodyBytes);
  ASSERT_TRUE(list) << list.error().message;
  ASSERT_TRUE(list->targets[0].body);
  EXPECT_EQ(*list->targets[0].body, "{\"n\":1}");
}

TEST(TargetFile, ABodyPastTheCapFails) {
  TempDir dir;
  dir.write("big", std::string(100, 'x'));
  const std::string file = dir.write("t", "POST /a\n@big\n");
  const TextFd no_stdin("");
  auto list = read_targets(file, no_stdin.get(), base_url(), 10);
  ASSERT_FALSE(list);
  EXPECT_NE(list.error().message.find(file + ":2: the body file"), std::string::npos) << list.error().message;
  EXPECT_NE(list.error().message.find("--max-request-body"), std::string::npos);
}

TEST(TargetFile, DashReadsStdin) {
  const TextFd in("{\"url\":\"/s\"}\n");
  auto list = read_targets("-", in.get(), base_url(), kDefaultMaxRequestBodyBytes);
  ASSERT_TRUE(list) << list.error().message;
  EXPECT_EQ(list->targets[0].path, "/s");
  const TextFd bad("GET\n");
  auto failed = read_targets("-", bad.get(), base_url(), kDefaultMaxRequestBodyBytes);
  ASSERT_FALSE(failed);
  EXPECT_NE(failed.error().message.find("stdin:1:"), std::string::npos) << failed.error().message;
}

TEST(TargetFile, AMissingFileFails) {
  const TextFd no_stdin("");
  auto list = read_targets("/nonexistent/targets.txt", no_stdin.get(), base_url(), 1);
  ASSERT_FALSE(list);
  EXPECT_EQ(list.error().kind, ErrorKind::kBadInput);
  EXPECT_NE(list.error().message.find("--targets: cannot read '/nonexistent/targets.txt'"), std::string::npos);
}

TEST(TargetFile, JsonLinesCarryEveryField) {
  auto list = parse_targets(
      "{\"method\":\"POST\",\"url\":\"/api/orders\",\"header\":{\"Content-Type\":[\"application/json\"],\"X-A\":\"1\"},"
      "\"body\":\"eyJhIjoxfQ==\",\"name\":\"create order\",\"weight\":3}\n\n"
      "{\"url\":\"/api/items\",\"body_text\":\"plain\"}\n",
      source());
  ASSERT_TRUE(list) << list.error().message;
  ASSERT_EQ(list->targets.size(), 2u);
  const RequestTarget& a = list->targets[0];
  EXPECT_EQ(a.method, "POST");
  EXPECT_EQ(a.path, "/api/orders");
  ASSERT_EQ(a.headers.size(), 2u);
  EXPECT_EQ(*a.body, "{\"a\":1}");
  EXPECT_EQ(a.name, "create order");
  EXPECT_EQ(a.weight, 3u);
  EXPECT_EQ(list->targets[1].method, "GET");
  EXPECT_EQ(*list->targets[1].body, "plain");
  EXPECT_EQ(list->targets[1].where, "t.txt:3");
}

TEST(TargetFile, BadJsonFails) {
  const std::string e = error_of("{\"url\":\"/a\"}\n{\"url\": \n");
  EXPECT_NE(e.find("t.txt:2: not valid JSON"), std::string::npos) << e;
}

TEST(TargetFile, BadBase64Fails) {
  const std::string e = error_of("{\"url\":\"/a\",\"body\":\"not base64!\"}\n");
  EXPECT_NE(e.find("t.txt:1: \"body\" is not valid base64"), std::string::npos) << e;
}

TEST(TargetFile, JsonLinesRefuseUnknownFieldsBadTypesAndBadWeights) {
  EXPECT_NE(error_of("{\"url\":\"/a\",\"headers\":{}}").find("t.txt:1: unknown field \"headers\""), std::string::npos);
  EXPECT_NE(error_of("{\"url\":\"/a\",\"weight\":0}").find("\"weight\" must be an integer"), std::string::npos);
  EXPECT_NE(error_of("{\"url\":\"/a\",\"weight\":1.5}").find("\"weight\" must be an integer"), std::string::npos);
  EXPECT_NE(error_of("{\"url\":\"/a\",\"body\":\"\",\"body_text\":\"\"}").find("both"), std::string::npos);
  EXPECT_NE(error_of("{\"url\":\"/a\",\"method\":\"FETCH\"}").find("unknown method 'FETCH'"), std::string::npos);
  EXPECT_NE(error_of("{\"method\":\"GET\"}").find("t.txt:1: the target has no \"url\""), std::string::npos);
  EXPECT_NE(error_of("{\"url\":\"/a\",\"header\":{\"X\":[1]}}").find("values must be strings"), std::string::npos);
  EXPECT_NE(error_of("{\"url\":\"/a\"}\n[1]").find("t.txt:2: expected a JSON object"), std::string::npos);
  EXPECT_NE(error_of("{\"url\":\"https://127.0.0.1:8080/a\"}").find("a second origin"), std::string::npos);
}

TEST(TargetFile, AnEmptyFileOrOnlyCommentsFails) {
  EXPECT_NE(error_of(" \n\n").find("t.txt: no targets"), std::string::npos);
  EXPECT_NE(error_of("# nothing\n").find("t.txt: no targets"), std::string::npos);
}

TEST(TargetFile, TargetsOrderNames) {
  EXPECT_EQ(*parse_targets_order("weighted", "--targets-order"), TargetsOrder::kWeighted);
  auto bad = parse_targets_order("fair", "--targets-order");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().kind, ErrorKind::kBadArgument);
  EXPECT_NE(bad.error().message.find("'fair'"), std::string::npos);
}

}  // namespace
}  // namespace pacer::targets

namespace pacer::targets {
namespace {

TEST(TargetFile, HeaderValuesWithControlCharactersAreRefused) {
  const std::string e = error_of(std::string("GET /a\nX-A: one\rtwo\n"));
  EXPECT_NE(e.find("t.txt:2: header 'X-A': a control character"), std::string::npos) << e;
  EXPECT_NE(error_of("{\"url\":\"/a\",\"header\":{\"X\":\"a\\u0000b\"}}").find("a control character"),
            std::string::npos);
  EXPECT_NE(error_of("GET /a\nX-A: bell\x07\n").find("a control character"), std::string::npos);
}

TEST(TargetFile, FramingHeadersThatContradictPacersAreRefusedNamingTheLine) {
  RequestTarget t;
  t.where = "t.txt:4";
  t.body = "12345";
  t.headers = {{"Content-Length", "5"}};
  EXPECT_TRUE(check_target_framing(t, false));
  t.headers = {{"content-length", "9"}};
  auto wrong = check_target_framing(t, false);
  ASSERT_FALSE(wrong);
  EXPECT_NE(wrong.error().message.find("t.txt:4: 'content-length: 9' contradicts the body, which is 5 bytes"),
            std::string::npos);
  t.headers = {{"Transfer-Encoding", "chunked"}};
  EXPECT_FALSE(check_target_framing(t, false));
  t.headers = {{"Host", "a"}, {"host", "b"}};  // RFC 9112 3.2: a server answers 400 to two
  auto hosts = check_target_framing(t, false);
  ASSERT_FALSE(hosts);
  EXPECT_NE(hosts.error().message.find("t.txt:4: a second Host header ('host: b')"), std::string::npos);
  t.headers = {{"Connection", "close"}};
  EXPECT_TRUE(check_target_framing(t, false));
  EXPECT_FALSE(check_target_framing(t, true));
  t.headers = {{"TE", "trailers"}};
  EXPECT_TRUE(check_target_framing(t, true));
}

}  // namespace
}  // namespace pacer::targets
