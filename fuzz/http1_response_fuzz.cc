// Fuzz target: the HTTP/1.1 response path, Http1Session (request bytes out,
// responses matched in order) over ResponseParser (llhttp plus the known-head
// shortcut), fed what a server might send, in one piece and in random splits.
//
// Input: byte 0 = mode: bits 0-5 depth-1 (requests submitted up front), bit 6
// every request is HEAD, bit 7 a script's batch (submit_bytes: one token, depth
// responses, byte 2 = which are HEAD); byte 1 = split seed; byte 2 = bytes of
// the requests left unwritten (0: all written; an early response) and, in batch
// mode, the HEAD bits; the rest = the bytes the server sends.
//
// Invariants beyond "no crash":
//   - the same events (token, status, in order), the same accept/reject and the
//     same finish() result whether the bytes come in one feed or in pieces, and
//     whether the known head is used or not (it must parse exactly like llhttp);
//   - responses go to the submitted tokens in submission order, never more
//     responses than requests;
//   - a rejected feed gives a reason;
//   - ab's fields (issue 33): each response's body length is the same in every one
//     of those ways, and its Server header (llhttp's) whatever the split;
//   - the same bytes read as a --server-metrics scrape (a response body,
//     evidence/prom_text.h): every sample's series starts with its metric name,
//     and the samples and the lines skipped never exceed the lines.
#include <algorithm>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "evidence/prom_text.h"
#include "fuzz_support.h"
#include "proto/http1_session.h"

namespace {

using pacer::proto::Http1Session;
using pacer::proto::KnownHead;
using pacer::proto::RequestFailure;
using pacer::proto::SessionEvents;

constexpr std::string_view kRequest = "GET / HTTP/1.1\r\nHost: x\r\n\r\n";

struct Recorder final : SessionEvents {
  explicit Recorder(const Http1Session& s) : session(s) {}
  const Http1Session& session;
  std::vector<std::pair<std::uint32_t, int>> events;  // token, status; batch responses as token + 1000
  std::vector<std::uint64_t> bodies;  // each response's body length (ab's document length)
  std::vector<std::string> servers;   // and its Server header
  void on_response(std::uint32_t token, int status) override {
    events.emplace_back(token, status);
    note(token);
  }
  void on_request_failed(std::uint32_t, RequestFailure) override { FUZZ_CHECK(false && "HTTP/1.1 has no stream failures"); }
  void on_batch_response(std::uint32_t token, int status) override {
    events.emplace_back(token + 1000, status);
    note(token);
  }
  void note(std::uint32_t token) {
    bodies.push_back(session.body_bytes(token));
    servers.emplace_back(session.server(token));
  }
};

struct Outcome {
  std::vector<std::pair<std::uint32_t, int>> events;
  std::vector<std::uint64_t> bodies;
  bool accepted = true;   // every receive() returned true
  bool finished = false;  // finish() returned true (only asked when accepted)
  std::vector<std::string> servers;  // not in ==: the known head's is read from its bytes, not by llhttp
  bool operator==(const Outcome& o) const {
    return events == o.events && bodies == o.bodies && accepted == o.accepted && finished == o.finished;
  }
};

struct Mode {
  std::uint32_t depth;
  bool is_head;
  bool batch;
  std::uint8_t unwritten;
  std::uint64_t head_bits;
};

Outcome run(const Mode& mode, std::string_view input, const std::vector<std::size_t>& pieces, bool use_known) {
  static std::string repeated;
  if (repeated.empty()) {
    for (std::uint32_t i = 0; i < Http1Session::kMaxDepth; ++i) repeated += kRequest;
  }
  static std::string batch_bytes;  // the script's batch: depth requests in one token
  KnownHead known;
  Http1Session session(kRequest, repeated, mode.batch ? 1 : mode.depth, mode.is_head, use_known ? &known : nullptr);
  session.keep_server(true);
  session.reset();
  if (mode.batch) {
    batch_bytes = repeated.substr(0, mode.depth * kRequest.size());
    session.submit_bytes(0, batch_bytes, mode.depth, mode.head_bits);
  } else {
    for (std::uint32_t t = 0; t < mode.depth; ++t) session.submit(t, 0);
  }
  for (auto out = session.pending_output(); !out.empty(); out = session.pending_output()) session.consume(out.size());
  Recorder recorder(session);
  Outcome outcome;
  std::size_t at = 0;
  for (std::size_t piece : pieces) {
    if (!session.receive(input.data() + at, piece, recorder)) {
      FUZZ_CHECK(std::strlen(session.error_reason()) > 0);
      outcome.accepted = false;
      break;
    }
    at += piece;
  }
  if (outcome.accepted) outcome.finished = session.finish(recorder);
  outcome.events = std::move(recorder.events);
  outcome.bodies = std::move(recorder.bodies);
  outcome.servers = std::move(recorder.servers);
  return outcome;
}

// Writes all but `unwritten` bytes of the requests: a response may come early.
Outcome run_partial(const Mode& mode, std::string_view input) {
  std::string repeated;
  for (std::uint32_t i = 0; i < mode.depth; ++i) repeated += kRequest;
  Http1Session session(kRequest, repeated, mode.depth, mode.is_head);
  session.reset();
  for (std::uint32_t t = 0; t < mode.depth; ++t) session.submit(t, 0);
  const auto out = session.pending_output();
  const std::size_t unwritten = std::min<std::size_t>(mode.unwritten, out.size());
  session.consume(out.size() - unwritten);
  Recorder recorder(session);
  Outcome outcome;
  outcome.accepted = session.receive(input.data(), input.size(), recorder);
  if (outcome.accepted) outcome.finished = session.finish(recorder);
  outcome.events = std::move(recorder.events);
  outcome.bodies = std::move(recorder.bodies);
  return outcome;
}

void print(const char* name, const Outcome& o) {
  std::fprintf(stderr, "%s: accepted %d finished %d events", name, o.accepted, o.finished);
  for (const auto& [token, status] : o.events) std::fprintf(stderr, " %u:%d", token, status);
  std::fprintf(stderr, " bodies");
  for (const std::uint64_t body : o.bodies) std::fprintf(stderr, " %llu", static_cast<unsigned long long>(body));
  std::fprintf(stderr, "\n");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  pacer::fuzz::Reader reader(data, size);
  const std::uint8_t mode_byte = reader.byte();
  const std::uint8_t seed = reader.byte();
  const std::uint8_t extra = reader.byte();
  const Mode mode{1u + (mode_byte & 63u), (mode_byte & 64) != 0, (mode_byte & 128) != 0, extra, extra};
  const std::string_view input = reader.rest();
  {
    std::size_t bad = 0;
    const auto samples = pacer::evidence::parse_prom_text(input, &bad);
    const auto lines = static_cast<std::size_t>(std::count(input.begin(), input.end(), '\n')) + 1;
    FUZZ_CHECK(samples.size() + bad <= lines);
    for (const auto& s : samples) FUZZ_CHECK(s.series.compare(0, s.name.size(), s.name) == 0);
  }

  const std::vector<std::size_t> whole = input.empty() ? std::vector<std::size_t>{} : std::vector<std::size_t>{input.size()};
  const std::vector<std::size_t> pieces = pacer::fuzz::split_lengths(input.size(), seed);
  const Outcome one = run(mode, input, whole, true);
  const Outcome split = run(mode, input, pieces, true);
  const Outcome plain = run(mode, input, pieces, false);
  if (!(one == split) || !(one == plain)) {
    print("one feed", one);
    print("split", split);
    print("split, no known head", plain);
  }
  FUZZ_CHECK(one == split);
  FUZZ_CHECK(one == plain);
  FUZZ_CHECK(run(mode, input, whole, false).servers == plain.servers);  // llhttp's Server, whatever the split

  // Responses go to the tokens in submission order, at most one each.
  const std::size_t finals = mode.batch ? 1 : mode.depth;
  std::size_t final_seen = 0;
  std::size_t batch_seen = 0;
  for (const auto& [token, status] : one.events) {
    if (token >= 1000) {
      FUZZ_CHECK(mode.batch && token == 1000 && final_seen == 0);
      ++batch_seen;
    } else {
      FUZZ_CHECK(token == final_seen);
      ++final_seen;
    }
  }
  FUZZ_CHECK(final_seen <= finals);
  FUZZ_CHECK(batch_seen + final_seen <= mode.depth);

  if (!mode.batch && mode.unwritten > 0) {
    const Outcome early = run_partial(mode, input);
    FUZZ_CHECK(early.events.size() <= mode.depth);
    for (std::size_t i = 0; i < early.events.size(); ++i) FUZZ_CHECK(early.events[i].first == i);
  }
  return 0;
}
