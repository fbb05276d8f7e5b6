// Fuzz target: response body decoding for --compressed (proto/decode.h). The
// input is a body in one of the codings pacer decodes, fed to a BodyDecoder.
//
// Input: byte 0 = the coding (mod 5: identity, gzip, deflate, br, zstd); byte 1 =
// split seed; the rest = the body.
//
// Invariants beyond "no crash":
//   - one feed and random splits give the same outcome (decoded or failed) and,
//     when decoded, the same byte count;
//   - a decoder never counts more than the decoded-size cap plus one scratch
//     buffer (16 KiB), whatever the body claims to expand to;
//   - an identity body decodes to exactly its length;
//   - the decoder is usable again after any body (the next response decodes).
#include <cstdint>
#include <string_view>

#include "fuzz_support.h"
#include "proto/decode.h"

namespace {

using pacer::proto::BodyDecoder;
using pacer::proto::ContentEncoding;

constexpr std::uint64_t kScratchBytes = 16 * 1024;

struct Outcome {
  bool ok;
  std::uint64_t decoded;
};

Outcome decode(BodyDecoder& d, ContentEncoding e, std::string_view body, const std::vector<std::size_t>& pieces) {
  d.begin(e);
  std::size_t at = 0;
  bool ok = true;
  for (const std::size_t piece : pieces) {
    ok = d.feed(body.data() + at, piece) && ok;
    at += piece;
  }
  ok = d.finish() && ok;
  FUZZ_CHECK(d.decoded_bytes() <= BodyDecoder::kMaxDecodedBytes + kScratchBytes);
  return {ok, d.decoded_bytes()};
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  constexpr ContentEncoding kCodings[] = {ContentEncoding::kIdentity, ContentEncoding::kGzip, ContentEncoding::kDeflate,
                                          ContentEncoding::kBrotli, ContentEncoding::kZstd};
  const ContentEncoding coding = kCodings[data[0] % 5];
  const std::string_view body(reinterpret_cast<const char*>(data + 2), size - 2);
  static BodyDecoder decoder;  // reused across inputs, as a connection reuses its decoder
  const Outcome whole = decode(decoder, coding, body, {body.size()});
  const Outcome split = decode(decoder, coding, body, pacer::fuzz::split_lengths(body.size(), data[1]));
  FUZZ_CHECK(whole.ok == split.ok);
  if (whole.ok) FUZZ_CHECK(whole.decoded == split.decoded);
  if (coding == ContentEncoding::kIdentity) FUZZ_CHECK(whole.ok && whole.decoded == body.size());
  // Usable again: an empty identity body after whatever came before.
  const Outcome next = decode(decoder, ContentEncoding::kIdentity, {}, {});
  FUZZ_CHECK(next.ok && next.decoded == 0);
  return 0;
}
