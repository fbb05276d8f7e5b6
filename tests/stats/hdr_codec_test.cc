// Tests for the HdrHistogram V2 codec: round trips over several layouts, known
// answers (bytes derived by hand, strings written by the Java reference), every
// corruption the decoder reports, and random byte flips (run under the asan
// preset too). HdrCodec.DumpForReference also writes fixed histograms for
// tests/reference/test_hdr_reference.py when PACER_HDR_DUMP names a file.
// Single-threaded; random inputs use fixed seeds.
#include "stats/hdr_codec.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <climits>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <initializer_list>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "report/hgrm.h"

namespace pacer::report::test_fixtures {
stats::Histogram basic_hgrm_histogram();  // defined in tests/report/hgrm_test.cc
}  // namespace pacer::report::test_fixtures

namespace pacer::stats {
namespace {

constexpr std::int64_t kHourNs = 3'600'000'000'000;

std::string bytes(std::initializer_list<int> values) {
  std::string out;
  for (const int v : values) out.push_back(static_cast<char>(v));
  return out;
}

// The 40-byte V2 header with the given fields (ratio 1.0), for hand-built payloads.
std::string v2_header(std::uint32_t payload_bytes, int significant_figures, std::int64_t lowest, std::int64_t highest,
                      std::uint32_t cookie = kHdrV2PayloadCookie) {
  std::string out;
  const auto put = [&](std::uint64_t v, int n) {
    for (int i = n - 1; i >= 0; --i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  };
  put(cookie, 4);
  put(payload_bytes, 4);
  put(0, 4);
  put(static_cast<std::uint32_t>(significant_figures), 4);
  put(static_cast<std::uint64_t>(lowest), 8);
  put(static_cast<std::uint64_t>(highest), 8);
  put(0x3ff0000000000000, 8);
  return out;
}

// The compressed envelope around any payload, deflated the way the codec does.
std::string wrap(std::string_view payload) {
  uLongf n = compressBound(static_cast<uLong>(payload.size()));
  std::string deflated(n, '\0');
  EXPECT_EQ(compress2(reinterpret_cast<Bytef*>(deflated.data()), &n, reinterpret_cast<const Bytef*>(payload.data()),
                      static_cast<uLong>(payload.size()), Z_DEFAULT_COMPRESSION),
            Z_OK);
  deflated.resize(n);
  return bytes({0x1c, 0x84, 0x93, 0x14, 0, 0, static_cast<int>(n >> 8), static_cast<int>(n & 0xff)}) + deflated;
}

Histogram latency_like(std::uint64_t seed, int samples) {
  Histogram h = Histogram::for_latency_ns();
  std::mt19937_64 rng(seed);
  std::lognormal_distribution<double> body(std::log(400'000.0), 0.6);  // ~400us median
  for (int i = 0; i < samples; ++i) h.record(static_cast<std::int64_t>(body(rng)));
  h.record_n(2'000'000'000, 3);  // a few timeouts
  h.record(7);
  return h;
}

void expect_same_counts(const Histogram& expected, const Histogram& actual) {
  ASSERT_EQ(actual.lowest_discernible(), expected.lowest_discernible());
  ASSERT_EQ(actual.highest_trackable(), expected.highest_trackable());
  ASSERT_EQ(actual.significant_figures(), expected.significant_figures());
  ASSERT_EQ(actual.counts_len(), expected.counts_len());
  EXPECT_EQ(actual.total_count(), expected.total_count());
  int differing = 0;
  for (int i = 0; i < expected.counts_len(); ++i) {
    if (actual.count_at_index(i) != expected.count_at_index(i) && ++differing <= 5) {
      ADD_FAILURE() << "count at index " << i << ": " << actual.count_at_index(i)
                    << " != " << expected.count_at_index(i);
    }
  }
  EXPECT_EQ(differing, 0);
}

// V2 keeps no min/max: decoding yields the bounds of their buckets (the highest
// bound for both when a single value is all there is in the lowest bucket).
void expect_round_trip(const Histogram& h) {
  const std::string text = encode_v2_base64(h);
  const Result<Histogram> back = decode_v2_base64(text);
  ASSERT_TRUE(back.ok()) << back.error().message;
  expect_same_counts(h, *back);
  if (h.total_count() == 0) {
    EXPECT_EQ(back->min(), 0);
    EXPECT_EQ(back->max(), 0);
  } else {
    const std::int64_t max = std::min(h.highest_equivalent(h.max()), h.highest_trackable());
    const bool lone = h.index_of(h.min()) == h.index_of(h.max()) && h.count_at_index(h.index_of(h.max())) == 1;
    EXPECT_EQ(back->min(), lone ? max : h.lowest_equivalent(h.min()));
    EXPECT_EQ(back->max(), max);
  }
  EXPECT_EQ(encode_v2_base64(*back), text) << "re-encoding a decoded histogram changes it";
}

// ---- Round trips ------------------------------------------------------------------

TEST(HdrCodec, EmptyHistogramRoundTrips) { expect_round_trip(Histogram::for_latency_ns()); }

TEST(HdrCodec, OneValueRoundTrips) {
  Histogram h = Histogram::for_latency_ns();
  h.record(123'456);
  expect_round_trip(h);
  const Result<Histogram> back = decode_v2_base64(encode_v2_base64(h));
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->value_at_percentile(50), h.highest_equivalent(123'456));
}

TEST(HdrCodec, RandomLatencyDataRoundTripsEveryCount) {
  const Histogram h = latency_like(20240601, 200'000);
  expect_round_trip(h);
  const Result<Histogram> back = decode_v2_base64(encode_v2_base64(h));
  ASSERT_TRUE(back.ok());
  for (const double p : {50.0, 90.0, 99.0, 99.9, 99.99}) {
    EXPECT_EQ(back->value_at_percentile(p), h.highest_equivalent(h.value_at_percentile(p))) << p;
  }
}

TEST(HdrCodec, ValuesAtTheTopOfTheRangeRoundTrip) {
  Histogram latency = Histogram::for_latency_ns();
  latency.record(kHourNs);
  latency.record(kHourNs + 5);  // clamped to highest_trackable
  latency.record(0);
  expect_round_trip(latency);

  Histogram full(1, INT64_MAX, 3);
  full.record_n(INT64_MAX, INT64_MAX / 2);  // the widest counts need all 9 varint bytes
  full.record_n(INT64_MAX - 1, 1);
  full.record(1);
  expect_round_trip(full);
}

TEST(HdrCodec, EveryLayoutParameterRoundTrips) {
  std::mt19937_64 rng(7);
  for (const int digits : {1, 2, 3, 4, 5}) {
    for (const std::int64_t lowest : {std::int64_t{1}, std::int64_t{1000}, std::int64_t{1} << 20}) {
      Histogram h(lowest, lowest * 1'000'000, digits);
      std::uniform_int_distribution<std::int64_t> value(0, lowest * 1'000'000);
      for (int i = 0; i < 2000; ++i) h.record_n(value(rng), 1 + static_cast<std::int64_t>(rng() % 3));
      SCOPED_TRACE(testing::Message() << "digits " << digits << " lowest " << lowest);
      expect_round_trip(h);
    }
  }
}

// ---- Known answers ----------------------------------------------------------------

// Histogram(1, 2048, 3) holding 2048 once. Layout: 2048 sub-buckets (half 1024),
// 2 buckets, 3072 counts; 2048 lands in bucket 1, sub-bucket 1024: index 2048.
Histogram one_at_2048() {
  Histogram h(1, 2048, 3);
  h.record(2048);
  return h;
}

TEST(HdrCodec, PayloadBytesMatchTheHandDerivedEncoding) {
  const std::string expected =
      bytes({0x1c, 0x84, 0x93, 0x13}) +                          // cookie: V2 base 0x1c849303 | word-size nibble 0x10
      bytes({0x00, 0x00, 0x00, 0x03}) +                          // payload length: 3 bytes of counts follow
      bytes({0x00, 0x00, 0x00, 0x00}) +                          // normalizing index offset 0
      bytes({0x00, 0x00, 0x00, 0x03}) +                          // 3 significant figures
      bytes({0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01}) +  // lowest discernible 1
      bytes({0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x08, 0x00}) +  // highest trackable 2048
      bytes({0x3f, 0xf0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00}) +  // ratio 1.0 as a big-endian double
      bytes({0xff, 0x1f}) +  // indices 0..2047 empty: -2048, zigzag 4095 = 0x7f | 0x80, then 4095 >> 7 = 0x1f
      bytes({0x02});         // index 2048 holds 1: zigzag 2; nothing follows the max's index
  EXPECT_EQ(encode_v2(one_at_2048()), expected);
}

TEST(HdrCodec, EmptyPayloadIsTheHeaderAndOneLoneZero) {
  const std::string expected =
      bytes({0x1c, 0x84, 0x93, 0x13, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 3}) + bytes({0, 0, 0, 0, 0, 0, 0, 1}) +
      bytes({0x00, 0x00, 0x03, 0x46, 0x30, 0xb8, 0xa0, 0x00}) +  // 3'600'000'000'000 = 0x34630b8a000
      bytes({0x3f, 0xf0, 0, 0, 0, 0, 0, 0}) +
      bytes({0x00});  // max 0 -> one count (index 0); Java writes a lone zero as 0, not -1
  EXPECT_EQ(encode_v2(Histogram::for_latency_ns()), expected);
}

TEST(HdrCodec, WidestCountTakesNineVarintBytes) {
  Histogram h(1, 2048, 3);
  h.record_n(0, INT64_MAX);
  // zigzag(INT64_MAX) = 2^64 - 2: 0xfe, seven 0xff with the "more" bit, then the
  // ninth byte carries the top 8 bits whole (the LEB128-64b9B variant).
  EXPECT_EQ(encode_v2(h).substr(40), bytes({0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}));
  expect_round_trip(h);
}

TEST(HdrCodec, Base64MatchesTheJavaReferenceByteForByte) {
  const std::string compressed = encode_v2_compressed(one_at_2048());
  // Envelope by hand: cookie 0x1c849314, 32 deflated bytes, zlib header 78 9c
  // (deflate, 32K window, default level), which base64 spells "HISTFAAAACB4nJ".
  EXPECT_EQ(compressed.substr(0, 10), bytes({0x1c, 0x84, 0x93, 0x14, 0, 0, 0, 0x20, 0x78, 0x9c}));
  EXPECT_EQ(compressed.size(), 8u + 0x20u);
  // What Java's Histogram(1, 2048, 3).recordValue(2048) encodes to (and HdrHistogram_c).
  EXPECT_EQ(encode_v2_base64(one_at_2048()), "HISTFAAAACB4nJNpmSzMwMDAzAABMJoRQnEw2H+AsP7LMwEARZgDpQ==");
}

TEST(HdrCodec, DecodesAStringTheJavaReferenceWrote) {
  const Result<Histogram> h = decode_v2_base64("HISTFAAAACB4nJNpmSzMwMDAzAABMJoRQnEw2H+AsP7LMwEARZgDpQ==");
  ASSERT_TRUE(h.ok()) << h.error().message;
  EXPECT_EQ(h->total_count(), 1);
  EXPECT_EQ(h->count_at_index(2048), 1);
  EXPECT_EQ(h->max(), 2048);  // the bucket is [2048, 2049], capped at highest trackable
}

TEST(HdrCodec, DecodesAJHiccupLogLineWrittenAtBestCompression) {
  // An interval histogram from a jHiccup .hlog (zlib header 78 da): 20us..1h, 2 digits.
  const Result<Histogram> h = decode_v2_base64(
      "HISTFAAAAEV42pNpmSzMwMCgyAABTBDKT4GBgdnNYMcCBvsPEBEJISEuATEZMQ4uASkhIR4nrxg9v2lMaxhvMekILGZkKmcCAEf2CsI=");
  ASSERT_TRUE(h.ok()) << h.error().message;
  EXPECT_EQ(h->lowest_discernible(), 20'000);
  EXPECT_EQ(h->highest_trackable(), kHourNs);
  EXPECT_EQ(h->significant_figures(), 2);
  // What the Java reference reports for the same string.
  EXPECT_EQ(h->total_count(), 741);
  EXPECT_EQ(h->max(), 2'768'895);
  EXPECT_EQ(h->count_at_index(h->index_of(0)), 12);
  EXPECT_EQ(h->count_at_index(h->index_of(344'063)), 139);
  EXPECT_EQ(h->value_at_percentile(50), 344'063);
  EXPECT_EQ(h->value_at_percentile(90), 376'831);
  EXPECT_EQ(h->value_at_percentile(99), 409'599);
}

TEST(HdrCodec, AcceptsSurroundingWhitespace) {
  const Result<Histogram> h = decode_v2_base64("  HISTFAAAACB4nJNpmSzMwMDAzAABMJoRQnEw2H+AsP7LMwEARZgDpQ==\r\n");
  EXPECT_TRUE(h.ok());
}

// ---- Corruption -------------------------------------------------------------------

void expect_bad_input(const Result<Histogram>& r, std::string_view fragment) {
  ASSERT_FALSE(r.ok()) << "decoded something that should be rejected (expected: " << fragment << ")";
  EXPECT_EQ(r.error().kind, ErrorKind::kBadInput);
  EXPECT_NE(r.error().message.find(fragment), std::string::npos) << r.error().message;
}

TEST(HdrCodec, RejectsTruncatedBase64) {
  const std::string good = encode_v2_base64(latency_like(1, 1000));
  expect_bad_input(decode_v2_base64(good.substr(0, good.size() - 1)), "not a multiple of 4");
  expect_bad_input(decode_v2_base64(good.substr(0, good.size() - 4)), "compressed length field says");
  expect_bad_input(decode_v2_base64(good.substr(0, 4)), "shorter than its 8-byte header");
  expect_bad_input(decode_v2_base64(""), "shorter than its 8-byte header");
}

TEST(HdrCodec, RejectsCharactersOutsideTheBase64Alphabet) {
  std::string text = encode_v2_base64(one_at_2048());
  text[10] = '-';  // base64url, not the standard alphabet
  expect_bad_input(decode_v2_base64(text), "invalid character (byte 0x2d) at offset 10");
  expect_bad_input(decode_v2_base64("HIST=AAA"), "invalid character");
  expect_bad_input(decode_v2_base64("HIST FAAAACB"), "invalid character (byte 0x20) at offset 4");
}

TEST(HdrCodec, RejectsABadCompressedCookie) {
  std::string compressed = encode_v2_compressed(one_at_2048());
  compressed[3] = 0x13;  // the uncompressed payload's cookie
  expect_bad_input(decode_v2_compressed(compressed), "expected 0x1c849314");
  compressed[3] = 0x02;
  expect_bad_input(decode_v2_compressed(compressed), "V1 cookie");
  compressed[0] = 0x7f;
  expect_bad_input(decode_v2_compressed(compressed), "not an HdrHistogram cookie");
}

TEST(HdrCodec, RejectsABadCompressedLength) {
  std::string compressed = encode_v2_compressed(one_at_2048());
  compressed[7] = 0x21;
  expect_bad_input(decode_v2_compressed(compressed), "compressed length field says 33 bytes but 32 follow");
  compressed[4] = static_cast<char>(0x80);
  expect_bad_input(decode_v2_compressed(compressed), "says -2147483615 bytes");
  expect_bad_input(decode_v2_compressed(encode_v2_compressed(one_at_2048()) + "x"), "but 33 follow");
}

TEST(HdrCodec, RejectsGarbageInsteadOfZlib) {
  std::string compressed = encode_v2_compressed(one_at_2048());
  for (std::size_t i = 8; i < compressed.size(); ++i) compressed[i] = static_cast<char>(0x5a ^ i);
  expect_bad_input(decode_v2_compressed(compressed), "zlib stream is corrupt");
}

TEST(HdrCodec, RejectsAZlibStreamWithABadChecksum) {
  std::string compressed = encode_v2_compressed(one_at_2048());
  compressed.back() = static_cast<char>(compressed.back() ^ 1);  // adler32 trailer
  expect_bad_input(decode_v2_compressed(compressed), "incorrect data check");
}

TEST(HdrCodec, RejectsATruncatedZlibStream) {
  const std::string good = encode_v2_compressed(latency_like(3, 1000));
  std::string cut = good.substr(0, good.size() - 10);
  const auto n = static_cast<std::uint32_t>(cut.size() - 8);
  cut[6] = static_cast<char>(n >> 8);
  cut[7] = static_cast<char>(n & 0xff);
  expect_bad_input(decode_v2_compressed(cut), "zlib stream is truncated");
}

TEST(HdrCodec, RejectsAZlibStreamThatEndsInsideTheHeader) {
  expect_bad_input(decode_v2_compressed(wrap(v2_header(0, 3, 1, 2048).substr(0, 20))),
                   "ends after 20 bytes, inside the 40-byte V2 header");
}

TEST(HdrCodec, RejectsPayloadLengthsThatDisagreeWithTheData) {
  const std::string counts = bytes({0xff, 0x1f, 0x02});
  expect_bad_input(decode_v2_compressed(wrap(v2_header(4, 3, 1, 2048) + counts)),
                   "holds 43 bytes but the V2 header declares 44");
  expect_bad_input(decode_v2_compressed(wrap(v2_header(2, 3, 1, 2048) + counts)), "more than the 42 bytes");
  expect_bad_input(decode_v2(v2_header(2, 3, 1, 2048) + counts), "length field says 2 bytes but 3 follow");
  // 3072 counts can need at most 9 bytes each: a larger claim is refused before inflating.
  expect_bad_input(decode_v2_compressed(wrap(v2_header(27649, 3, 1, 2048) + counts)),
                   "says 27649 bytes; the layout's 3072 counts need at most 27648");
  expect_bad_input(decode_v2(v2_header(0, 3, 1, 2048).substr(0, 39)), "shorter than its 40-byte header");
}

TEST(HdrCodec, RejectsABadPayloadCookie) {
  expect_bad_input(decode_v2_compressed(wrap(v2_header(1, 3, 1, 2048, 0x1c849301) + bytes({0}))), "V1 cookie");
  expect_bad_input(decode_v2(v2_header(1, 3, 1, 2048, 0x1c849314) + bytes({0})), "expected 0x1c849313");
}

TEST(HdrCodec, AcceptsAnyWordSizeNibbleOnTheV2Cookies) {
  Result<Histogram> h = decode_v2(v2_header(3, 3, 1, 2048, 0x1c849303) + bytes({0xff, 0x1f, 0x02}));
  ASSERT_TRUE(h.ok()) << h.error().message;
  EXPECT_EQ(h->count_at_index(2048), 1);
}

TEST(HdrCodec, RejectsLayoutsTheHistogramCannotHold) {
  const std::string zero = bytes({0});
  expect_bad_input(decode_v2(v2_header(1, 0, 1, 1000) + zero), "significant figures must be 1 to 5");
  expect_bad_input(decode_v2(v2_header(1, 6, 1, 1000) + zero), "significant figures must be 1 to 5");
  expect_bad_input(decode_v2(v2_header(1, 3, 0, 1000) + zero), "lowest discernible value must be >= 1");
  expect_bad_input(decode_v2(v2_header(1, 3, 600, 1000) + zero), "highest trackable value must be >= 2 * lowest");
  expect_bad_input(decode_v2(v2_header(1, 3, -5, 1000) + zero), "lowest discernible value must be >= 1");
  expect_bad_input(decode_v2(v2_header(1, 5, std::int64_t{1} << 46, INT64_MAX) + zero),
                   "lowest discernible value too large");
  // Java accepts zero significant digits; pacer's Histogram does not.
  expect_bad_input(decode_v2_base64("HISTFAAAAB14nJNpmSzMwMDAxIAKGCEU8wv7DxAWLxMASToDcw=="),
                   "(lowest 1, highest 1000, 0 significant figures)");
}

TEST(HdrCodec, RejectsCountsPastTheEndOfTheLayout) {
  // Histogram(1, 2048, 3) has 3072 counts: a run of 3072 empty ones, then a count.
  const std::string past = bytes({0xff, 0x2f, 0x02});  // -3072: zigzag 6143
  expect_bad_input(decode_v2(v2_header(3, 3, 1, 2048) + past),
                   "count at index 3072 (byte 42) is past the layout's 3072 counts");
  expect_bad_input(decode_v2_compressed(wrap(v2_header(3, 3, 1, 2048) + past)), "past the layout's 3072 counts");
  const std::string long_run = bytes({0x81, 0x30});  // -3073: zigzag 6145
  expect_bad_input(decode_v2(v2_header(2, 3, 1, 2048) + long_run),
                   "run of 3073 empty counts at index 0 (byte 40) overflows the layout's 3072 counts");
  const std::string huge_run = bytes({0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff});  // INT64_MIN
  expect_bad_input(decode_v2(v2_header(9, 3, 1, 2048) + huge_run), "run of 9223372036854775808 empty counts");
}

// Found by fuzz/hdr_decode_fuzz.cc: a count at an index past highest_trackable
// (inside the layout: its last bucket runs beyond it) was recorded at
// highest_trackable itself, so min came out as 45928 instead of its bucket's
// lowest value 45920, and a decode did not re-encode to the same histogram.
TEST(HdrCodec, CountsPastHighestTrackableLandInItsBucketAsAnyOther) {
  // Histogram(1, 45928, 3): a run of 6682 empty counts (zigzag 13363), then 1000.
  const std::string payload = v2_header(4, 3, 1, 45928) + bytes({0xb3, 0x68, 0xd0, 0x0f});
  const auto h = decode_v2(payload);
  ASSERT_TRUE(h.ok()) << h.error().message;
  EXPECT_EQ(h->total_count(), 1000);
  EXPECT_EQ(h->min(), h->lowest_equivalent(45928));
  EXPECT_EQ(h->max(), 45928);
  EXPECT_EQ(h->count_at_index(h->index_of(45928)), 1000);
  const auto again = decode_v2(encode_v2(*h));
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_EQ(again->min(), h->min());
  EXPECT_EQ(again->max(), h->max());
  EXPECT_EQ(encode_v2(*again), encode_v2(*h));
}

TEST(HdrCodec, RejectsATruncatedVarint) {
  expect_bad_input(decode_v2(v2_header(2, 3, 1, 2048) + bytes({0x02, 0x80})),
                   "payload ends inside the varint at byte 41");
}

TEST(HdrCodec, RejectsATotalCountThatOverflows) {
  const std::string widest = bytes({0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff});  // INT64_MAX
  expect_bad_input(decode_v2(v2_header(18, 3, 1, 2048) + widest + widest), "total count overflows at index 1");
}

TEST(HdrCodec, RejectsBytesAfterTheZlibStream) {
  std::string compressed = encode_v2_compressed(one_at_2048()) + "xy";
  compressed[7] = static_cast<char>(0x22);
  expect_bad_input(decode_v2_compressed(compressed), "2 bytes follow the end of the zlib stream");
}

// Random damage must produce an error or a self-consistent histogram, never a
// crash, a sanitizer report or an abort from Histogram's constructor.
void expect_consistent(const Result<Histogram>& r) {
  if (!r.ok()) {
    EXPECT_EQ(r.error().kind, ErrorKind::kBadInput);
    EXPECT_FALSE(r.error().message.empty());
    return;
  }
  EXPECT_EQ(r->count_at_or_below(r->highest_trackable()), r->total_count());
  EXPECT_LE(r->min(), r->max());
}

TEST(HdrCodec, SurvivesRandomByteFlips) {
  const std::string compressed = encode_v2_compressed(latency_like(11, 300));
  const std::string payload = encode_v2(latency_like(12, 300));
  const std::string text = encode_v2_base64(latency_like(13, 100));
  std::mt19937_64 rng(99);
  int decoded_anyway = 0;
  for (int round = 0; round < 1500; ++round) {
    std::string c = compressed;
    std::string p = payload;
    std::string t = text;
    const int flips = 1 + static_cast<int>(rng() % 3);
    for (int f = 0; f < flips; ++f) {
      c[rng() % c.size()] ^= static_cast<char>(1 + rng() % 255);
      p[rng() % p.size()] ^= static_cast<char>(1 + rng() % 255);
      t[rng() % t.size()] = static_cast<char>(rng() % 128);
    }
    const Result<Histogram> from_c = decode_v2_compressed(c);
    expect_consistent(from_c);
    const Result<Histogram> from_p = decode_v2(p);
    expect_consistent(from_p);
    expect_consistent(decode_v2_base64(t));
    decoded_anyway += from_p.ok();
  }
  EXPECT_GT(decoded_anyway, 0) << "flips in counts should sometimes still decode";
}

// ---- Reference dump ---------------------------------------------------------------

std::string json_string(std::string_view s) {
  std::string out = "\"";
  for (const char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

std::vector<std::pair<std::string, Histogram>> reference_fixtures() {
  std::vector<std::pair<std::string, Histogram>> out;
  out.emplace_back("empty", Histogram::for_latency_ns());
  Histogram one = Histogram::for_latency_ns();
  one.record(1'234'567);
  out.emplace_back("one_value", std::move(one));
  out.emplace_back("latency_like", latency_like(20240601, 200'000));
  Histogram deep = Histogram::for_latency_ns();
  deep.record_n(1'000'000, 9'999'999);  // 1ms, then one 3s outlier: ~100 levels deep
  deep.record(3'000'000'000);
  out.emplace_back("deep_tail", std::move(deep));
  Histogram top = Histogram::for_latency_ns();
  top.record_n(kHourNs, 5);
  top.record_n(1, 5);
  out.emplace_back("top_of_range", std::move(top));
  Histogram wide(1000, std::int64_t{1} << 50, 2);
  wide.record_n(123'456'789, std::int64_t{1} << 40);
  wide.record_n(std::int64_t{1} << 49, 3);
  out.emplace_back("unit_1000_two_digits", std::move(wide));
  Histogram five(1, INT64_MAX, 5);
  for (std::int64_t v = 1; v < INT64_MAX / 10; v *= 10) five.record_n(v, v % 7 + 1);
  out.emplace_back("five_digits_full_range", std::move(five));
  out.emplace_back("basic_hgrm", report::test_fixtures::basic_hgrm_histogram());
  return out;
}

// Writes one JSON object a line: name, base64, total, max as Java reports it,
// [lowest, highest] equivalent ranges for p50/p90/p99/p99.9, and the .hgrm text
// in ms (scaling 1e6). Without PACER_HDR_DUMP it still checks the fixtures decode.
TEST(HdrCodec, DumpForReference) {
  const char* path = std::getenv("PACER_HDR_DUMP");
  std::ofstream out;
  if (path != nullptr) {
    out.open(path, std::ios::binary);
    ASSERT_TRUE(out.good()) << "cannot write " << path;
  }
  for (const auto& [name, h] : reference_fixtures()) {
    const std::string text = encode_v2_base64(h);
    const Result<Histogram> back = decode_v2_base64(text);
    ASSERT_TRUE(back.ok()) << name << ": " << back.error().message;
    expect_same_counts(h, *back);
    if (path == nullptr) continue;
    const std::int64_t java_max = h.max() == 0 ? 0 : h.highest_equivalent(h.max());
    out << "{\"name\": " << json_string(name) << ", \"base64\": " << json_string(text)
        << ", \"total\": " << h.total_count() << ", \"max\": " << java_max << ", \"percentiles\": {";
    const char* separator = "";
    for (const char* p : {"50", "90", "99", "99.9"}) {
      const std::int64_t v = h.value_at_percentile(std::strtod(p, nullptr));
      out << separator << "\"" << p << "\": [" << h.lowest_equivalent(v) << ", " << h.highest_equivalent(v) << "]";
      separator = ", ";
    }
    out << "}, \"hgrm_ms\": " << json_string(report::render_hgrm(h, 1e6)) << "}\n";
  }
  EXPECT_TRUE(path == nullptr || out.good());
}

}  // namespace
}  // namespace pacer::stats
