// Body decoding with zlib, brotli and zstd. See decode.h.
#include "proto/decode.h"

#include <brotli/decode.h>
#include <strings.h>
#include <zlib.h>
#include <zstd.h>

#include <cstdlib>

namespace pacer::proto {

namespace {

constexpr std::size_t kScratchBytes = 16 * 1024;  // decoded bytes land here and are dropped
// zstd frames may ask for windows up to 2^31; HTTP's zstd coding needs at most 8 MiB (RFC 9659).
constexpr int kZstdWindowLogMax = 23;

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool equals_lower(std::string_view s, std::string_view lower) {
  return s.size() == lower.size() && strncasecmp(s.data(), lower.data(), s.size()) == 0;
}

void* brotli_alloc(void* opaque, std::size_t bytes) { return static_cast<ReuseAllocator*>(opaque)->allocate(bytes); }
void brotli_free(void* opaque, void* block) { static_cast<ReuseAllocator*>(opaque)->release(block); }

}  // namespace

ContentEncoding parse_content_encoding(std::string_view value) {
  value = trim(value);
  if (value.empty() || equals_lower(value, "identity")) return ContentEncoding::kIdentity;
  if (equals_lower(value, "gzip") || equals_lower(value, "x-gzip")) return ContentEncoding::kGzip;
  if (equals_lower(value, "deflate")) return ContentEncoding::kDeflate;
  if (equals_lower(value, "br")) return ContentEncoding::kBrotli;
  if (equals_lower(value, "zstd")) return ContentEncoding::kZstd;
  return ContentEncoding::kUnsupported;
}

const char* content_encoding_name(ContentEncoding e) {
  switch (e) {
    case ContentEncoding::kIdentity: return "identity";
    case ContentEncoding::kGzip: return "gzip";
    case ContentEncoding::kDeflate: return "deflate";
    case ContentEncoding::kBrotli: return "br";
    case ContentEncoding::kZstd: return "zstd";
    case ContentEncoding::kUnsupported: break;
  }
  return "unsupported";
}

// ---- ReuseAllocator ------------------------------------------------------------

ReuseAllocator::~ReuseAllocator() {
  for (Block& b : blocks_) std::free(b.data);
}

void* ReuseAllocator::allocate(std::size_t bytes) {
  // The smallest free block that fits and wastes at most half of itself.
  Block* best = nullptr;
  for (Block& b : blocks_) {
    if (b.data == nullptr || b.in_use || b.bytes < bytes || b.bytes / 2 > bytes) continue;
    if (best == nullptr || b.bytes < best->bytes) best = &b;
  }
  if (best != nullptr) {
    best->in_use = true;
    return best->data;
  }
  Block* slot = nullptr;  // an empty entry, else a free block to give back
  for (Block& b : blocks_) {
    if (b.data == nullptr) {
      slot = &b;
      break;
    }
    if (!b.in_use && slot == nullptr) slot = &b;
  }
  void* data = std::malloc(bytes);
  if (data == nullptr) return nullptr;
  ++fresh_blocks_;
  if (slot == nullptr) return data;  // every entry in use: this block is not kept (release frees it)
  std::free(slot->data);
  *slot = Block{data, bytes, true};
  return data;
}

void ReuseAllocator::release(void* block) {
  if (block == nullptr) return;
  for (Block& b : blocks_) {
    if (b.data == block) {
      b.in_use = false;
      return;
    }
  }
  std::free(block);
}

// ---- BodyDecoder ---------------------------------------------------------------

// Decoded bytes are counted and dropped: one scratch buffer per thread serves
// every decoder of that thread (a decoder runs only inside its worker's feed()).
thread_local std::array<unsigned char, kScratchBytes> t_scratch;

struct BodyDecoder::Codecs {
  z_stream zlib{};
  bool zlib_ready = false;
  ZSTD_DCtx* zstd = nullptr;
  ReuseAllocator brotli_memory;
  BrotliDecoderState* brotli = nullptr;
  ~Codecs() {
    if (zlib_ready) inflateEnd(&zlib);
    ZSTD_freeDCtx(zstd);
    if (brotli != nullptr) BrotliDecoderDestroyInstance(brotli);
  }
};

BodyDecoder::BodyDecoder() = default;
BodyDecoder::~BodyDecoder() = default;

std::uint64_t BodyDecoder::brotli_fresh_blocks() const {
  return codecs_ ? codecs_->brotli_memory.fresh_blocks() : 0;
}

bool BodyDecoder::fail(const char* reason) {
  failed_ = true;
  reason_ = reason;
  return false;
}

bool BodyDecoder::count(std::size_t produced) {
  decoded_ += produced;
  if (decoded_ > kMaxDecodedBytes) return fail("decode: the body decodes to more than 64 MiB (the decoded-size cap)");
  return true;
}

void BodyDecoder::begin(ContentEncoding encoding) {
  encoding_ = encoding;
  decoded_ = 0;
  failed_ = false;
  stream_ended_ = false;
  any_input_ = false;
  reason_ = "";
  if (encoding == ContentEncoding::kIdentity || encoding == ContentEncoding::kUnsupported) return;
  if (!codecs_) codecs_ = std::make_unique<Codecs>();
  Codecs& c = *codecs_;
  switch (encoding) {
    case ContentEncoding::kGzip:
    case ContentEncoding::kDeflate:
      // 15 + 32: a 32 KiB window, and the gzip or zlib header detected from the data.
      if (!c.zlib_ready) {
        c.zlib_ready = inflateInit2(&c.zlib, 15 + 32) == Z_OK;
      } else {
        inflateReset(&c.zlib);
      }
      if (!c.zlib_ready) fail("decode: zlib could not start");
      break;
    case ContentEncoding::kZstd:
      if (c.zstd == nullptr) {
        c.zstd = ZSTD_createDCtx();
        if (c.zstd != nullptr) ZSTD_DCtx_setParameter(c.zstd, ZSTD_d_windowLogMax, kZstdWindowLogMax);
      } else {
        ZSTD_DCtx_reset(c.zstd, ZSTD_reset_session_only);
      }
      if (c.zstd == nullptr) fail("decode: zstd could not start");
      break;
    case ContentEncoding::kBrotli:
      if (c.brotli != nullptr) BrotliDecoderDestroyInstance(c.brotli);
      c.brotli = BrotliDecoderCreateInstance(&brotli_alloc, &brotli_free, &c.brotli_memory);
      if (c.brotli == nullptr) fail("decode: brotli could not start");
      break;
    default:
      break;
  }
}

bool BodyDecoder::feed(const char* data, std::size_t len) {
  if (failed_) return false;
  if (len == 0) return true;
  any_input_ = true;
  switch (encoding_) {
    case ContentEncoding::kIdentity: return count(len);
    case ContentEncoding::kUnsupported: return fail("decode: Content-Encoding is not one pacer decodes");
    case ContentEncoding::kGzip:
    case ContentEncoding::kDeflate: return feed_zlib(data, len);
    case ContentEncoding::kBrotli: return feed_brotli(data, len);
    case ContentEncoding::kZstd: return feed_zstd(data, len);
  }
  return true;
}

bool BodyDecoder::feed_zlib(const char* data, std::size_t len) {
  z_stream& z = codecs_->zlib;
  if (stream_ended_) return fail("decode: bytes after the end of the compressed stream");
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data));
  z.avail_in = static_cast<uInt>(len);
  while (true) {
    z.next_out = t_scratch.data();
    z.avail_out = static_cast<uInt>(kScratchBytes);
    const int rc = inflate(&z, Z_NO_FLUSH);
    if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR) {
      return fail(encoding_ == ContentEncoding::kGzip ? "decode: the body is not valid gzip"
                                                      : "decode: the body is not valid deflate (zlib format)");
    }
    if (!count(kScratchBytes - z.avail_out)) return false;
    if (rc == Z_STREAM_END) {
      stream_ended_ = true;
      if (z.avail_in > 0) return fail("decode: bytes after the end of the compressed stream");
      return true;
    }
    if (z.avail_out != 0 && (z.avail_in == 0 || rc == Z_BUF_ERROR)) return true;
  }
}

bool BodyDecoder::feed_brotli(const char* data, std::size_t len) {
  if (stream_ended_) return fail("decode: bytes after the end of the compressed stream");
  auto* in = reinterpret_cast<const std::uint8_t*>(data);
  std::size_t in_left = len;
  while (true) {
    std::uint8_t* out = t_scratch.data();
    std::size_t out_left = kScratchBytes;
    const BrotliDecoderResult rc =
        BrotliDecoderDecompressStream(codecs_->brotli, &in_left, &in, &out_left, &out, nullptr);
    if (rc == BROTLI_DECODER_RESULT_ERROR) return fail("decode: the body is not valid brotli");
    if (!count(kScratchBytes - out_left)) return false;
    if (rc == BROTLI_DECODER_RESULT_SUCCESS) {
      stream_ended_ = true;
      if (in_left > 0) return fail("decode: bytes after the end of the compressed stream");
      return true;
    }
    if (rc == BROTLI_DECODER_RESULT_NEEDS_MORE_INPUT) return true;
  }
}

bool BodyDecoder::feed_zstd(const char* data, std::size_t len) {
  ZSTD_inBuffer in{data, len, 0};
  while (true) {
    ZSTD_outBuffer out{t_scratch.data(), kScratchBytes, 0};
    const std::size_t rc = ZSTD_decompressStream(codecs_->zstd, &out, &in);
    if (ZSTD_isError(rc) != 0) return fail("decode: the body is not valid zstd (or needs a window over 8 MiB)");
    if (!count(out.pos)) return false;
    stream_ended_ = rc == 0;  // a frame is complete (another may follow: zstd allows several)
    if (in.pos == in.size && out.pos < out.size) return true;
  }
}

bool BodyDecoder::finish() {
  if (failed_) return false;
  if (encoding_ == ContentEncoding::kIdentity || !any_input_) return true;
  if (!stream_ended_) return fail("decode: the compressed body ended before its stream did");
  return true;
}

}  // namespace pacer::proto
