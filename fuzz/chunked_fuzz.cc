// Fuzz target: chunked response bodies. ResponseParser (with a capture, as for a
// script's response()) is fed a fixed head "HTTP/1.1 200 OK\r\nTransfer-Encoding:
// chunked\r\n\r\n" and then the input as the body (chunk sizes, extensions,
// trailers, and whatever follows: a second response is expected too).
//
// Input: byte 0 = split seed; byte 1 = the capture's body cap (0: none, else
// 4 x the byte, as --max-capture-body would set it); the rest = the bytes
// after the head.
//
// Invariants beyond "no crash":
//   - one feed and random splits give the same completions (status, keep-alive,
//     captured body), the same accept/reject and the same finish() result;
//   - a captured body is never longer than the bytes it came from, nor than the cap;
//   - a body that a strict reference decoder accepts (hex sizes, CRLFs, a last
//     0 chunk, no trailer) completes with exactly the bytes that decoder yields
//     when it fits the cap, and is refused (no completion) when it does not.
#include <cctype>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_support.h"
#include "proto/http1_parser.h"

namespace {

using pacer::proto::ResponseCapture;
using pacer::proto::ResponseParser;

constexpr std::string_view kHead = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n";

struct Completion {
  int status;
  bool keep_alive;
  std::string body;
  bool operator==(const Completion&) const = default;
};

struct Outcome {
  std::vector<Completion> completions;
  bool accepted = true;
  bool finished = false;
  bool operator==(const Outcome&) const = default;
};

struct Context {
  ResponseCapture capture;
  std::vector<Completion> completions;
};

void on_complete(void* raw, int status, bool keep_alive) {
  auto& context = *static_cast<Context*>(raw);
  context.completions.push_back({status, keep_alive, context.capture.body});
}

Outcome run(std::string_view body, const std::vector<std::size_t>& pieces, std::size_t cap) {
  Context context;
  context.capture.max_body_bytes.max = cap;
  ResponseParser parser(&on_complete, &context);
  parser.set_capture(&context.capture);
  parser.reset();
  FUZZ_CHECK(parser.expect(false));
  FUZZ_CHECK(parser.expect(false));
  Outcome outcome;
  outcome.accepted = parser.feed(kHead.data(), kHead.size());
  FUZZ_CHECK(outcome.accepted);
  std::size_t at = 0;
  for (std::size_t piece : pieces) {
    if (!parser.feed(body.data() + at, piece)) {
      outcome.accepted = false;
      break;
    }
    at += piece;
  }
  if (outcome.accepted) outcome.finished = parser.finish();
  outcome.completions = std::move(context.completions);
  return outcome;
}

// A strict chunked decoder: sizes in hex (no extension), CRLF after each size
// and chunk, a last 0 chunk followed by CRLF. Returns false for anything else;
// `used` is how many bytes the body took.
bool reference_decode(std::string_view in, std::string& out, std::size_t& used) {
  std::size_t at = 0;
  for (;;) {
    std::size_t size = 0;
    std::size_t digits = 0;
    while (at < in.size() && std::isxdigit(static_cast<unsigned char>(in[at])) != 0) {
      if (++digits > 8) return false;
      const char c = in[at++];
      size = size * 16 + static_cast<std::size_t>(c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
    }
    if (digits == 0 || in.substr(at, 2) != "\r\n") return false;
    at += 2;
    if (size == 0) break;
    if (in.size() - at < size + 2 || in.substr(at + size, 2) != "\r\n") return false;
    out.append(in.substr(at, size));
    at += size + 2;
  }
  if (in.substr(at, 2) != "\r\n") return false;
  used = at + 2;
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  pacer::fuzz::Reader reader(data, size);
  const std::uint8_t seed = reader.byte();
  const std::uint8_t cap_byte = reader.byte();
  const std::size_t cap = cap_byte == 0 ? SIZE_MAX : std::size_t{cap_byte} * 4;
  const std::string_view body = reader.rest();
  const std::vector<std::size_t> whole = body.empty() ? std::vector<std::size_t>{} : std::vector<std::size_t>{body.size()};
  const Outcome one = run(body, whole, cap);
  const Outcome split = run(body, pacer::fuzz::split_lengths(body.size(), seed), cap);
  FUZZ_CHECK(one == split);
  FUZZ_CHECK(one.completions.size() <= 2);
  for (const Completion& c : one.completions) FUZZ_CHECK(c.body.size() <= body.size() && c.body.size() <= cap);

  std::string expected;
  std::size_t used = 0;
  const bool valid = reference_decode(body, expected, used);
  if (valid && expected.size() > cap) {
    FUZZ_CHECK(!one.accepted && one.completions.empty());
  } else if (valid) {
    FUZZ_CHECK(!one.completions.empty());
    FUZZ_CHECK(one.completions[0].status == 200);
    FUZZ_CHECK(one.completions[0].body == expected);
    if (used == body.size()) {
      FUZZ_CHECK(one.accepted);
      FUZZ_CHECK(one.completions.size() == 1);
    }
  }
  return 0;
}
