// What the wire features (issue 15) read from a response beyond its status:
// the Location header (--follow-redirects), the Content-Encoding header and the
// body (--compressed, through a BodyDecoder). Fed by the HTTP/1.1 parser (names
// and values may come in pieces, split by reads) and by HTTP/2 (whole header
// fields). Only the headers asked for are kept, in buffers that keep their
// capacity: a Location longer than kMaxLocationBytes is remembered as too long,
// not kept.
//
// Thread: the owning connection's worker.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "proto/decode.h"

namespace pacer::proto {

class ResponseInspect {
 public:
  static constexpr std::size_t kMaxLocationBytes = 8 * 1024;  // docs/limits.md

  // want_location: keep Location; decode: decode bodies (Content-Encoding).
  ResponseInspect(bool want_location, bool decode);

  // A response starts: forgets the last one's headers.
  void begin();
  // Header name and value bytes, in pieces (a name's pieces, then its value's).
  void name_piece(const char* at, std::size_t len);
  void value_piece(const char* at, std::size_t len);
  // One header field is complete.
  void field_done();
  // The head is complete: the body (if any) follows.
  void head_done();
  // A whole header field (HTTP/2: lower-case name).
  void field(std::string_view name, std::string_view value);
  // Body bytes (after head_done). Decoding failures are remembered (end_body()).
  // False once the body has decoded past the decoded-size cap: the caller ends the
  // response there as a decode error (end_body() is then false), without waiting
  // for its end, which an endless compressed stream never reaches. (A body that is
  // not its coding fails at its end, so its connection can carry on.)
  bool body(const char* at, std::size_t len);
  // The response is complete: ends decoding. False if the body failed to decode.
  bool end_body();

  bool decodes() const { return decode_; }
  // Whether a response with `status` must go through this inspection: every one
  // when decoding (its body), else a redirect being followed (its Location). The
  // parser's known head stands in only for the others.
  bool reads(int status) const;
  bool has_location() const { return location_state_ != LocationState::kNone; }
  bool location_too_long() const { return location_state_ == LocationState::kTooLong; }
  std::string_view location() const { return location_; }
  std::uint64_t decoded_bytes() const { return decoder_.decoded_bytes(); }
  const char* decode_reason() const { return decoder_.reason(); }
  ContentEncoding encoding() const { return encoding_; }

 private:
  enum class Which : std::uint8_t { kOther, kLocation, kEncoding };
  enum class LocationState : std::uint8_t { kNone, kSome, kTooLong };
  void classify();  // the name is complete: which header this is

  bool want_location_;
  bool decode_;
  std::array<char, 24> name_{};      // the current header's name, lower case (longer names are neither)
  std::size_t name_length_ = 0;
  bool in_value_ = false;
  Which which_ = Which::kOther;
  std::string location_;  // with want_location only; at most kMaxLocationBytes, its capacity kept
  LocationState location_state_ = LocationState::kNone;
  std::array<char, 64> encoding_text_{};
  std::size_t encoding_length_ = 0;
  int encoding_headers_ = 0;
  ContentEncoding encoding_ = ContentEncoding::kIdentity;
  BodyDecoder decoder_;
};

}  // namespace pacer::proto
