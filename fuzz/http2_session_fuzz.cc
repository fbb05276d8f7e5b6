// Fuzz target: the HTTP/2 session's receive path. An Http2Session (nghttp2 in
// memory) sends its preface, SETTINGS and N requests, then receives the input
// as the server's bytes (frames), in one piece and in random splits.
//
// Input: byte 0 = mode: bits 0-2 streams-1 (requests submitted), bit 3 the
// request has a body, bit 4 token 0 is cancelled before anything arrives, bit 5
// an empty server SETTINGS frame is put before the input (so the fuzzer need
// not find the server preface); byte 1 = split seed; the rest = server bytes.
//
// Invariants beyond "no crash":
//   - one feed and random splits give the same events and accept/reject;
//   - each submitted token ends at most once (a response or a failure), a
//     cancelled token never; responses carry a status in 100..599 (another
//     three-digit :status fails the request as malformed);
//   - capacity() never exceeds the streams asked for; after a rejected feed the
//     session takes no new requests and gives a reason;
//   - the output queued while receiving (SETTINGS ack, WINDOW_UPDATE, RST) drains.
#include <cstring>
#include <string>
#include <vector>

#include "fuzz_support.h"
#include "proto/http2_session.h"

namespace {

using pacer::proto::H2Memory;
using pacer::proto::Http2Request;
using pacer::proto::Http2Session;
using pacer::proto::RequestFailure;
using pacer::proto::SessionEvents;

struct Recorder final : SessionEvents {
  std::vector<std::uint64_t> events;  // token << 32 | status, or token << 32 | 1000 + failure
  void on_response(std::uint32_t token, int status) override {
    events.push_back(std::uint64_t{token} << 32 | static_cast<std::uint32_t>(status));
  }
  void on_request_failed(std::uint32_t token, RequestFailure why) override {
    events.push_back(std::uint64_t{token} << 32 | (1000u + static_cast<std::uint32_t>(why)));
  }
};

struct Outcome {
  std::vector<std::uint64_t> events;
  bool accepted = true;
  bool operator==(const Outcome&) const = default;
};

const Http2Request& request(bool with_body) {
  static const auto make = [](bool body) {
    pacer::Config config;
    config.target.url = "http://127.0.0.1:8080/fuzz";
    config.target.scheme = "http";
    config.target.host = "127.0.0.1";
    config.target.port = 8080;
    config.target.path = "/fuzz?q=1";
    config.http2 = true;
    config.headers.push_back({"x-fuzz", "1"});
    if (body) config.body = std::string(40000, 'b');  // more than one default window
    return config;
  };
  static const Http2Request plain(make(false));
  static const Http2Request with(make(true));
  return with_body ? with : plain;
}

Outcome run(std::uint32_t streams, bool body, bool cancel_first, std::string_view input,
            const std::vector<std::size_t>& pieces) {
  H2Memory memory;
  Http2Session session(request(body), streams, memory);
  session.reset();
  for (std::uint32_t t = 0; t < streams; ++t) session.submit(t, 0);
  for (auto out = session.pending_output(); !out.empty(); out = session.pending_output()) session.consume(out.size());
  if (cancel_first) FUZZ_CHECK(session.cancel(0));
  Recorder recorder;
  Outcome outcome;
  std::size_t at = 0;
  for (std::size_t piece : pieces) {
    if (!session.receive(input.data() + at, piece, recorder)) {
      outcome.accepted = false;
      break;
    }
    at += piece;
    FUZZ_CHECK(session.capacity() <= streams);
  }
  if (!outcome.accepted) {
    FUZZ_CHECK(session.capacity() == 0);
    FUZZ_CHECK(std::strlen(session.error_reason()) > 0);
  }
  std::size_t drained = 0;
  for (auto out = session.pending_output(); !out.empty() && drained < (64u << 20); out = session.pending_output()) {
    drained += out.size();
    session.consume(out.size());
  }
  FUZZ_CHECK(drained < (64u << 20));
  session.finish(recorder);
  FUZZ_CHECK(session.capacity() == 0);
  outcome.events = std::move(recorder.events);
  return outcome;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  pacer::fuzz::Reader reader(data, size);
  const std::uint8_t mode = reader.byte();
  const std::uint8_t seed = reader.byte();
  const std::uint32_t streams = 1u + (mode & 7u);
  const bool body = (mode & 8) != 0;
  const bool cancel_first = (mode & 16) != 0;
  std::string input;
  if ((mode & 32) != 0) input.assign("\x00\x00\x00\x04\x00\x00\x00\x00\x00", 9);
  input.append(reader.rest());

  const std::vector<std::size_t> whole = input.empty() ? std::vector<std::size_t>{} : std::vector<std::size_t>{input.size()};
  const Outcome one = run(streams, body, cancel_first, input, whole);
  const Outcome split = run(streams, body, cancel_first, input, pacer::fuzz::split_lengths(input.size(), seed));
  FUZZ_CHECK(one == split);

  std::vector<bool> ended(streams, false);
  for (std::uint64_t e : one.events) {
    const auto token = static_cast<std::uint32_t>(e >> 32);
    const auto what = static_cast<std::uint32_t>(e);
    FUZZ_CHECK(token < streams);
    FUZZ_CHECK(!ended[token]);
    FUZZ_CHECK(!(cancel_first && token == 0));
    ended[token] = true;
    // A :status outside 100-599 ("006") fails the request as malformed.
    FUZZ_CHECK((what >= 100 && what <= 599) || what >= 1000);
  }
  return 0;
}
