// ab's fields (issue 33) in the reports: the text's Server, Document and Sent
// lines, the JSON's first_response and counts read back exactly, an older report
// without them, and pacer merge (the first shard's document length; differing
// shards said so, their mismatches summed).
#include "report/ab_fields.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>

#include "report/json.h"
#include "report/json_reader.h"
#include "report/merge.h"
#include "report/text.h"

namespace pacer::report {
namespace {

RunReport ab_report() {
  RunReport r;
  r.url = "http://localhost/";
  r.threads = 1;
  r.connections = 2;
  r.duration_ns = kNsPerS;
  r.timeout_ns = 2 * kNsPerS;
  r.measured_ns = kNsPerS;
  stats::Counters& c = r.counters;
  c.responses = c.requests_sent = 100;
  c.status_counts[200] = 100;
  c.bytes_read = 12'000;
  c.bytes_written = 7'800;
  c.length_mismatches = 3;
  r.latency.record_n(2'000'000, 100);
  r.server = "nginx/1.22.1";
  r.document_bytes = 612;
  r.document_name = "GET /";
  return r;
}

TEST(AbFields, TheTextSaysTheServerTheDocumentLengthItsMismatchesAndTheBytesSent) {
  const std::string text = render_text(ab_report());
  EXPECT_NE(text.find("Server:       nginx/1.22.1\n"), std::string::npos) << text;
  EXPECT_NE(text.find("Document:     612 bytes (the first 2xx response), 3 length mismatches\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("Sent:         7.62KB (7800 bytes: request heads and bodies), 12000 bytes read\n"),
            std::string::npos)
      << text;
}

TEST(AbFields, NoServerHeaderNoResponseAndSeveralEndpointsAreSaidAsSuch) {
  RunReport r = ab_report();
  r.server = "";
  r.endpoints.resize(2);
  r.counters.length_mismatches = 1;
  std::string text;
  for (const auto& [label, line] : ab_fields_lines(r)) text += label + " " + line + "\n";
  EXPECT_NE(text.find("Server: (the first response had no Server header)"), std::string::npos) << text;
  EXPECT_NE(text.find("612 bytes (the first 2xx response, GET /), 1 length mismatch (each endpoint against its own "
                      "first)"),
            std::string::npos)
      << text;
  r.server.reset();
  r.document_bytes.reset();
  r.counters.bytes_written = 0;
  EXPECT_TRUE(ab_fields_lines(r).empty());  // nothing recorded: no line claims a value
}

TEST(AbFields, TheJsonReadsBackExactlyAndAnOlderReportHasNone) {
  const RunReport r = ab_report();
  auto doc = nlohmann::json::parse(render_json(r));
  EXPECT_EQ(doc["first_response"]["server"], "nginx/1.22.1");
  EXPECT_EQ(doc["first_response"]["document_bytes"], 612);
  EXPECT_EQ(doc["counts"]["bytes_written"], 7800);
  EXPECT_EQ(doc["counts"]["length_mismatches"], 3);
  auto back = read_json_report(doc.dump(), "new.json");
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->server, r.server);
  EXPECT_EQ(back->document_bytes, r.document_bytes);
  EXPECT_EQ(back->document_name, r.document_name);
  EXPECT_EQ(back->counters.bytes_written, 7800u);
  EXPECT_EQ(back->counters.length_mismatches, 3u);
  EXPECT_EQ(render_text(*back), render_text(r));
  doc.erase("first_response");
  doc["counts"].erase("bytes_written");
  doc["counts"].erase("length_mismatches");
  auto old = read_json_report(doc.dump(), "old.json");
  ASSERT_TRUE(old) << old.error().message;
  EXPECT_FALSE(old->server.has_value());
  EXPECT_FALSE(old->document_bytes.has_value());
  doc = nlohmann::json::parse(render_json(r));
  doc["first_response"]["document_bytes"] = -1;
  auto bad = read_json_report(doc.dump(), "bad.json");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("first_response.document_bytes"), std::string::npos) << bad.error().message;
}

TEST(AbFields, MergeKeepsTheFirstShardsDocumentAndSaysWhenTheShardsDiffer) {
  const RunReport a = ab_report();
  RunReport b = ab_report();
  MergeRules rules;
  rules.force = true;  // two reports of one shard
  auto same = merge_reports({a, b}, {"a.json", "b.json"}, rules);
  ASSERT_TRUE(same) << same.error().message;
  EXPECT_EQ(same->document_bytes, 612u);
  EXPECT_FALSE(same->document_lengths_differ);
  EXPECT_EQ(same->counters.length_mismatches, 6u);
  EXPECT_EQ(same->counters.bytes_written, 15'600u);
  b.document_bytes = 700;
  b.server = "other";
  auto differ = merge_reports({a, b}, {"a.json", "b.json"}, rules);
  ASSERT_TRUE(differ) << differ.error().message;
  EXPECT_EQ(differ->document_bytes, 612u);
  EXPECT_EQ(differ->server, "nginx/1.22.1");
  EXPECT_TRUE(differ->document_lengths_differ);
  std::string text = render_text(*differ);
  for (std::size_t at; (at = text.find("\n              ")) != std::string::npos;) text.replace(at, 15, " ");  // unwrapped
  EXPECT_NE(text.find("612 bytes (the first 2xx response), 6 length mismatches; the shards' document lengths differ"),
            std::string::npos)
      << text;
}

}  // namespace
}  // namespace pacer::report
