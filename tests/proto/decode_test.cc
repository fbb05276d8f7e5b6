// BodyDecoder (src/proto/decode.h): every coding --compressed asks for decodes to
// the right byte count however the body is split; corrupt, cut-short and unknown
// bodies are decode errors; a decompression bomb stops at the decoded-size cap;
// brotli's per-response state stops reaching malloc after the first response.
#include <brotli/encode.h>
#include <gtest/gtest.h>
#include <zlib.h>
#include <zstd.h>

#include <string>

#include "../support/zlib_compress.h"
#include "proto/decode.h"

namespace pacer::proto {
namespace {

using testing::zlib_compress;

std::string sample_text(std::size_t bytes) {
  std::string out;
  for (std::size_t i = 0; out.size() < bytes; ++i) out += "line " + std::to_string(i % 97) + " of a compressible body\n";
  out.resize(bytes);
  return out;
}

std::string brotli_compress(const std::string& in) {
  std::size_t size = BrotliEncoderMaxCompressedSize(in.size());
  std::string out(size, '\0');
  EXPECT_TRUE(BrotliEncoderCompress(5, BROTLI_DEFAULT_WINDOW, BROTLI_MODE_TEXT, in.size(),
                                    reinterpret_cast<const std::uint8_t*>(in.data()), &size,
                                    reinterpret_cast<std::uint8_t*>(out.data())));
  out.resize(size);
  return out;
}

std::string zstd_compress(const std::string& in) {
  std::string out(ZSTD_compressBound(in.size()), '\0');
  const std::size_t n = ZSTD_compress(out.data(), out.size(), in.data(), in.size(), 3);
  EXPECT_EQ(ZSTD_isError(n), 0u);
  out.resize(n);
  return out;
}

// Feeds `coded` in pieces of `piece` bytes; true if the body decoded whole.
bool decode(BodyDecoder& d, ContentEncoding e, const std::string& coded, std::size_t piece) {
  d.begin(e);
  for (std::size_t at = 0; at < coded.size(); at += piece) {
    if (!d.feed(coded.data() + at, std::min(piece, coded.size() - at))) return false;
  }
  return d.finish();
}

struct Coded {
  ContentEncoding encoding;
  std::string body;
};

TEST(BodyDecoder, EveryCodingDecodesToItsSizeWholeAndSplitIntoSmallPieces) {
  const std::string text = sample_text(300'000);
  const Coded cases[] = {
      {ContentEncoding::kGzip, zlib_compress(text, 15 + 16)},
      {ContentEncoding::kDeflate, zlib_compress(text, 15)},
      {ContentEncoding::kBrotli, brotli_compress(text)},
      {ContentEncoding::kZstd, zstd_compress(text)},
      {ContentEncoding::kIdentity, text},
  };
  BodyDecoder d;
  for (const Coded& c : cases) {
    for (const std::size_t piece : {std::size_t{1} << 20, std::size_t{7}, std::size_t{1}}) {
      ASSERT_TRUE(decode(d, c.encoding, c.body, piece)) << content_encoding_name(c.encoding) << ": " << d.reason();
      EXPECT_EQ(d.decoded_bytes(), text.size()) << content_encoding_name(c.encoding) << " in pieces of " << piece;
    }
  }
}

TEST(BodyDecoder, OneDecoderServesResponsesOfDifferentCodingsInTurn) {
  const std::string text = sample_text(5000);
  BodyDecoder d;
  for (int round = 0; round < 3; ++round) {
    ASSERT_TRUE(decode(d, ContentEncoding::kZstd, zstd_compress(text), 100));
    ASSERT_TRUE(decode(d, ContentEncoding::kGzip, zlib_compress(text, 31), 100));
    ASSERT_TRUE(decode(d, ContentEncoding::kBrotli, brotli_compress(text), 100));
    EXPECT_EQ(d.decoded_bytes(), text.size());
  }
}

TEST(BodyDecoder, CorruptBodiesAreDecodeErrorsWithTheirCodingNamed) {
  const std::string text = sample_text(10'000);
  BodyDecoder d;
  std::string gzip = zlib_compress(text, 31);
  gzip[gzip.size() / 2] ^= 0x55;
  gzip[gzip.size() / 2 + 1] ^= 0x55;
  EXPECT_FALSE(decode(d, ContentEncoding::kGzip, gzip, 1000));
  EXPECT_TRUE(d.failed());
  EXPECT_NE(std::string(d.reason()).find("decode:"), std::string::npos);
  EXPECT_FALSE(decode(d, ContentEncoding::kGzip, "this is not gzip at all", 5));
  EXPECT_NE(std::string(d.reason()).find("gzip"), std::string::npos);
  EXPECT_FALSE(decode(d, ContentEncoding::kBrotli, std::string(100, '\xff'), 10));
  EXPECT_NE(std::string(d.reason()).find("brotli"), std::string::npos);
  EXPECT_FALSE(decode(d, ContentEncoding::kZstd, "not zstd either", 3));
  EXPECT_NE(std::string(d.reason()).find("zstd"), std::string::npos);
  // The next response decodes again.
  EXPECT_TRUE(decode(d, ContentEncoding::kGzip, zlib_compress(text, 31), 1000));
  EXPECT_EQ(d.decoded_bytes(), text.size());
}

TEST(BodyDecoder, ABodyCutShortOrWithBytesPastItsStreamIsADecodeError) {
  const std::string text = sample_text(10'000);
  BodyDecoder d;
  const std::string gzip = zlib_compress(text, 31);
  EXPECT_FALSE(decode(d, ContentEncoding::kGzip, gzip.substr(0, gzip.size() - 10), 100));
  EXPECT_NE(std::string(d.reason()).find("ended before"), std::string::npos);
  const std::string zstd = zstd_compress(text);
  EXPECT_FALSE(decode(d, ContentEncoding::kZstd, zstd.substr(0, zstd.size() - 3), 100));
  EXPECT_FALSE(decode(d, ContentEncoding::kBrotli, brotli_compress(text) + "extra", 100));
  EXPECT_NE(std::string(d.reason()).find("after the end"), std::string::npos);
}

TEST(BodyDecoder, AnUnknownCodingWithABodyIsADecodeErrorWithoutOneIsNot) {
  BodyDecoder d;
  EXPECT_FALSE(decode(d, ContentEncoding::kUnsupported, "body", 4));
  EXPECT_TRUE(decode(d, ContentEncoding::kUnsupported, "", 4));
  EXPECT_TRUE(decode(d, ContentEncoding::kGzip, "", 4));  // a 204 or HEAD response that names a coding
}

TEST(BodyDecoder, ADecompressionBombStopsAtTheDecodedSizeCap) {
  // 200 MiB of zeros: a few KiB coded.
  const std::string zeros(200u << 20, '\0');
  BodyDecoder d;
  const Coded bombs[] = {{ContentEncoding::kZstd, zstd_compress(zeros)},
                         {ContentEncoding::kGzip, zlib_compress(zeros, 31, 1)}};
  for (const Coded& bomb : bombs) {
    ASSERT_LT(bomb.body.size(), 1u << 20);
    EXPECT_FALSE(decode(d, bomb.encoding, bomb.body, 64 * 1024));
    EXPECT_NE(std::string(d.reason()).find("64 MiB"), std::string::npos) << d.reason();
    // It stopped within one scratch buffer of the cap, not at the bomb's size.
    EXPECT_LE(d.decoded_bytes(), BodyDecoder::kMaxDecodedBytes + 64 * 1024);
  }
}

TEST(BodyDecoder, BrotliReusesItsBlocksAfterTheFirstResponse) {
  const std::string coded = brotli_compress(sample_text(100'000));
  BodyDecoder d;
  ASSERT_TRUE(decode(d, ContentEncoding::kBrotli, coded, 4096));
  const std::uint64_t warmed = d.brotli_fresh_blocks();
  EXPECT_GT(warmed, 0u);
  for (int i = 0; i < 20; ++i) ASSERT_TRUE(decode(d, ContentEncoding::kBrotli, coded, 4096));
  EXPECT_EQ(d.brotli_fresh_blocks(), warmed);
}

TEST(ContentEncoding, NamesAreReadCaseInsensitivelyAndStackedCodingsAreUnsupported) {
  EXPECT_EQ(parse_content_encoding(" GZip "), ContentEncoding::kGzip);
  EXPECT_EQ(parse_content_encoding("x-gzip"), ContentEncoding::kGzip);
  EXPECT_EQ(parse_content_encoding("deflate"), ContentEncoding::kDeflate);
  EXPECT_EQ(parse_content_encoding("br"), ContentEncoding::kBrotli);
  EXPECT_EQ(parse_content_encoding("zstd"), ContentEncoding::kZstd);
  EXPECT_EQ(parse_content_encoding("identity"), ContentEncoding::kIdentity);
  EXPECT_EQ(parse_content_encoding(""), ContentEncoding::kIdentity);
  EXPECT_EQ(parse_content_encoding("gzip, br"), ContentEncoding::kUnsupported);
  EXPECT_EQ(parse_content_encoding("compress"), ContentEncoding::kUnsupported);
}

}  // namespace
}  // namespace pacer::proto
