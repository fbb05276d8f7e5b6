// Response body decoding for --compressed: gzip and deflate (zlib),
// br (brotli) and zstd. A BodyDecoder counts the bytes a body decodes to and
// throws them away (pacer never keeps a body), so a decompression bomb costs
// time, not memory; the time is bounded by kMaxDecodedBytes per response, past
// which the body is a decode error.
//
// Memory: one decoder per response in progress (HTTP/1.1: per connection; HTTP/2:
// per stream slot). Each codec's state is allocated the first time a response
// uses that codec, then reset per response: zlib (inflateReset2) and zstd
// (ZSTD_DCtx_reset) keep their windows; brotli, which has no reset, is created
// per response from a small allocator that hands its freed blocks out again, so
// after a warm-up no response reaches malloc. Thread: the owner's.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

namespace pacer::proto {

enum class ContentEncoding : std::uint8_t {
  kIdentity,     // no Content-Encoding, or "identity"
  kGzip,         // "gzip", "x-gzip"
  kDeflate,      // "deflate": the zlib format (RFC 9110 8.4.1.2)
  kBrotli,       // "br"
  kZstd,         // "zstd"
  kUnsupported,  // anything else, or several codings stacked
};

// The coding a Content-Encoding value names (case-insensitive, spaces trimmed).
ContentEncoding parse_content_encoding(std::string_view value);
const char* content_encoding_name(ContentEncoding e);

// Blocks brotli asks for, kept when freed and handed out again for a request of
// about the same size (at most kBlocks of them). Owned by one BodyDecoder.
class ReuseAllocator {
 public:
  ReuseAllocator() = default;
  ReuseAllocator(const ReuseAllocator&) = delete;
  ReuseAllocator& operator=(const ReuseAllocator&) = delete;
  ~ReuseAllocator();
  void* allocate(std::size_t bytes);
  void release(void* block);
  std::uint64_t fresh_blocks() const { return fresh_blocks_; }

 private:
  static constexpr std::size_t kBlocks = 32;
  struct Block {
    void* data = nullptr;
    std::size_t bytes = 0;
    bool in_use = false;
  };
  std::array<Block, kBlocks> blocks_{};
  std::uint64_t fresh_blocks_ = 0;
};

class BodyDecoder {
 public:
  // The most one response may decode to (docs/limits.md).
  static constexpr std::uint64_t kMaxDecodedBytes = 64ULL * 1024 * 1024;

  BodyDecoder();
  BodyDecoder(const BodyDecoder&) = delete;
  BodyDecoder& operator=(const BodyDecoder&) = delete;
  ~BodyDecoder();

  // A response starts whose body is coded `encoding`. Identity bodies are counted as they are.
  void begin(ContentEncoding encoding);
  // The next body bytes. False once the body cannot be decoded (see reason());
  // later calls then do nothing.
  bool feed(const char* data, std::size_t len);
  // The body ended: false if it failed, or its coded stream was cut short.
  bool finish();
  // What this response's body decoded to so far.
  std::uint64_t decoded_bytes() const { return decoded_; }
  // Why feed() or finish() failed (a static string).
  const char* reason() const { return reason_; }
  bool failed() const { return failed_; }
  // The body decoded to more than kMaxDecodedBytes (checked as it decodes, so an
  // endless compressed stream is caught at the cap, not at an end it never reaches).
  bool past_cap() const { return decoded_ > kMaxDecodedBytes; }
  // Blocks brotli's allocator took from malloc so far (flat once warmed up; for tests).
  std::uint64_t brotli_fresh_blocks() const;

 private:
  struct Codecs;
  bool fail(const char* reason);
  bool count(std::size_t produced);  // adds to decoded_, fails past kMaxDecodedBytes
  bool feed_zlib(const char* data, std::size_t len);
  bool feed_brotli(const char* data, std::size_t len);
  bool feed_zstd(const char* data, std::size_t len);

  std::unique_ptr<Codecs> codecs_;   // each codec's state, created on first use
  ContentEncoding encoding_ = ContentEncoding::kIdentity;
  std::uint64_t decoded_ = 0;
  bool failed_ = false;
  bool stream_ended_ = false;        // the coded stream said it is complete
  bool any_input_ = false;
  const char* reason_ = "";
};

}  // namespace pacer::proto
