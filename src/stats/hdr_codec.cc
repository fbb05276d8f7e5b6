// HdrHistogram V2 encoding (see hdr_codec.h for the byte layout). Decoding
// validates every field before it allocates: the header's layout must be one
// stats::Histogram accepts, the payload may not be longer than 9 bytes per count
// of that layout, inflation grows its buffer only as the zlib stream produces
// bytes, and the Histogram is built only after the whole payload parsed cleanly.
#include "stats/hdr_codec.h"

#include <fmt/format.h>
#include <zlib.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <new>
#include <optional>

#include "core/base64.h"

namespace pacer::stats {
namespace {

constexpr std::uint32_t kV2PayloadCookieBase = 0x1c849303;
constexpr std::uint32_t kV2CompressedCookieBase = 0x1c849304;
constexpr std::uint32_t kWordSizeNibbleMask = 0xf0;
constexpr std::size_t kPayloadHeaderBytes = 40;
constexpr std::size_t kCompressedHeaderBytes = 8;
constexpr std::size_t kMaxVarintBytes = 9;  // LEB128-64b9B: the 9th byte carries 8 bits
constexpr std::size_t kInflateChunkBytes = 64 * 1024;

std::uint32_t cookie_base(std::uint32_t cookie) { return cookie & ~kWordSizeNibbleMask; }

// ---- Big-endian fields and ZigZag varints --------------------------------------

void put_be(std::string& out, std::uint64_t value, int bytes) {
  for (int i = bytes - 1; i >= 0; --i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

std::uint64_t get_be(std::string_view in, std::size_t offset, int bytes) {
  std::uint64_t value = 0;
  for (int i = 0; i < bytes; ++i) {
    value = (value << 8) | static_cast<std::uint8_t>(in[offset + static_cast<std::size_t>(i)]);
  }
  return value;
}

// Java's ZigZagEncoding.putLong: 7 bits a byte, low first, high bit = "more";
// after eight such bytes the ninth holds the remaining 8 bits whole.
void put_varint(std::string& out, std::int64_t value) {
  std::uint64_t zz = (static_cast<std::uint64_t>(value) << 1) ^ static_cast<std::uint64_t>(value >> 63);
  for (std::size_t i = 0; i + 1 < kMaxVarintBytes; ++i) {
    if (zz < 0x80) {
      out.push_back(static_cast<char>(zz));
      return;
    }
    out.push_back(static_cast<char>((zz & 0x7f) | 0x80));
    zz >>= 7;
  }
  out.push_back(static_cast<char>(zz));
}

// Reads one varint at pos (advancing it); nullopt if the input ends inside it.
std::optional<std::int64_t> get_varint(std::string_view in, std::size_t& pos) {
  std::uint64_t zz = 0;
  for (std::size_t i = 0; i < kMaxVarintBytes; ++i) {
    if (pos >= in.size()) return std::nullopt;
    const auto byte = static_cast<std::uint8_t>(in[pos++]);
    if (i + 1 == kMaxVarintBytes) {
      zz |= std::uint64_t{byte} << 56;
      break;
    }
    zz |= std::uint64_t{byte & 0x7fu} << (7 * i);
    if ((byte & 0x80) == 0) break;
  }
  return static_cast<std::int64_t>((zz >> 1) ^ (0 - (zz & 1)));
}

// ---- Header ---------------------------------------------------------------------

struct V2Header {
  std::uint32_t cookie = 0;
  std::int32_t payload_bytes = 0;
  std::int32_t normalizing_index_offset = 0;
  std::int32_t significant_figures = 0;
  std::int64_t lowest_discernible = 0;
  std::int64_t highest_trackable = 0;
  double integer_to_double_ratio = 0.0;
};

V2Header parse_header(std::string_view in) {
  V2Header h;
  h.cookie = static_cast<std::uint32_t>(get_be(in, 0, 4));
  h.payload_bytes = static_cast<std::int32_t>(static_cast<std::uint32_t>(get_be(in, 4, 4)));
  h.normalizing_index_offset = static_cast<std::int32_t>(static_cast<std::uint32_t>(get_be(in, 8, 4)));
  h.significant_figures = static_cast<std::int32_t>(static_cast<std::uint32_t>(get_be(in, 12, 4)));
  h.lowest_discernible = static_cast<std::int64_t>(get_be(in, 16, 8));
  h.highest_trackable = static_cast<std::int64_t>(get_be(in, 24, 8));
  h.integer_to_double_ratio = std::bit_cast<double>(get_be(in, 32, 8));
  return h;
}

std::string describe_cookie(std::uint32_t cookie) {
  switch (cookie_base(cookie)) {
    case 0x1c849301:
    case 0x1c849302:
      return fmt::format("0x{:08x} is a V1 cookie (only V2 is supported)", cookie);
    case 0x1c849308:
    case 0x1c849309:
      return fmt::format("0x{:08x} is a V0 cookie (only V2 is supported)", cookie);
    default:
      return fmt::format("0x{:08x} is not an HdrHistogram cookie", cookie);
  }
}

// The number of counts HdrHistogram's layout for these parameters holds, or an
// error if stats::Histogram would reject them. Mirrors Histogram's constructor
// so the input can be bounded before anything is allocated.
Result<int> layout_counts_len(const V2Header& h) {
  const auto reject = [&h](std::string_view why) -> Error {
    return bad_input(fmt::format("layout (lowest {}, highest {}, {} significant figures): {}", h.lowest_discernible,
                                 h.highest_trackable, h.significant_figures, why));
  };
  if (h.significant_figures < 1 || h.significant_figures > 5) return reject("significant figures must be 1 to 5");
  if (h.lowest_discernible < 1) return reject("lowest discernible value must be >= 1");
  if (h.highest_trackable / 2 < h.lowest_discernible) return reject("highest trackable value must be >= 2 * lowest");
  std::int64_t single_unit_resolution = 2;
  for (int i = 0; i < h.significant_figures; ++i) single_unit_resolution *= 10;
  const auto sub_bucket_count_magnitude =
      static_cast<int>(std::bit_width(static_cast<std::uint64_t>(single_unit_resolution - 1)));
  const int half_magnitude = sub_bucket_count_magnitude - 1;
  const int unit_magnitude = static_cast<int>(std::bit_width(static_cast<std::uint64_t>(h.lowest_discernible))) - 1;
  if (unit_magnitude + half_magnitude > 61) return reject("lowest discernible value too large");

  std::int64_t smallest_untrackable = std::int64_t{1} << (sub_bucket_count_magnitude + unit_magnitude);
  int buckets = 1;
  while (smallest_untrackable <= h.highest_trackable) {
    if (smallest_untrackable > INT64_MAX / 2) {
      ++buckets;
      break;
    }
    smallest_untrackable <<= 1;
    ++buckets;
  }
  return (buckets + 1) * (1 << half_magnitude);
}

// ---- Counts ---------------------------------------------------------------------

struct CountsSummary {
  std::int64_t total = 0;
  int highest_index = -1;  // last non-empty index, -1 if none
};

// Walks the varint counts, calling fn(index, count) for every non-zero count.
// A negative varint skips that many empty counts, as Java's encoder writes runs.
template <typename Fn>
Result<CountsSummary> walk_counts(std::string_view counts, int counts_len, Fn&& fn) {
  CountsSummary summary;
  std::size_t pos = 0;
  std::int64_t index = 0;
  while (pos < counts.size()) {
    const std::size_t at = kPayloadHeaderBytes + pos;
    const std::optional<std::int64_t> value = get_varint(counts, pos);
    if (!value) return bad_input(fmt::format("payload ends inside the varint at byte {}", at));
    if (*value < 0) {
      if (*value < -(counts_len - index)) {
        return bad_input(fmt::format("run of {} empty counts at index {} (byte {}) overflows the layout's {} counts",
                                     static_cast<std::uint64_t>(-(*value + 1)) + 1, index, at, counts_len));
      }
      index -= *value;
      continue;
    }
    if (index >= counts_len) {
      return bad_input(
          fmt::format("count at index {} (byte {}) is past the layout's {} counts", index, at, counts_len));
    }
    if (*value > 0) {
      if (summary.total > INT64_MAX - *value) return bad_input(fmt::format("total count overflows at index {}", index));
      summary.total += *value;
      summary.highest_index = static_cast<int>(index);
      fn(static_cast<int>(index), *value);
    }
    ++index;
  }
  return summary;
}

// ---- zlib -----------------------------------------------------------------------

class Inflater {
 public:
  explicit Inflater(std::string_view input) {
    stream_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(input.data()));
    stream_.avail_in = static_cast<uInt>(input.size());
    initialized_ = inflateInit(&stream_) == Z_OK;
  }
  ~Inflater() {
    if (initialized_) inflateEnd(&stream_);
  }
  Inflater(const Inflater&) = delete;
  Inflater& operator=(const Inflater&) = delete;

  bool initialized() const { return initialized_; }
  std::size_t unread_input() const { return stream_.avail_in; }
  const char* message() const { return stream_.msg != nullptr ? stream_.msg : "no detail"; }

  // Appends to out until it holds `target` bytes or the stream ends, growing out
  // one chunk at a time. Returns Z_OK (target reached), Z_STREAM_END, or an error
  // (Z_BUF_ERROR: the input ended before the stream did).
  int inflate_to(std::string& out, std::size_t target) {
    while (out.size() < target) {
      const std::size_t have = out.size();
      const std::size_t room = std::min(target - have, kInflateChunkBytes);
      out.resize(have + room);
      stream_.next_out = reinterpret_cast<Bytef*>(out.data() + have);
      stream_.avail_out = static_cast<uInt>(room);
      const int rc = inflate(&stream_, Z_NO_FLUSH);
      out.resize(have + room - stream_.avail_out);
      if (rc != Z_OK) return rc;
    }
    return Z_OK;
  }

 private:
  z_stream stream_{};
  bool initialized_ = false;
};

std::string zlib_failure(int rc, const Inflater& inflater, std::size_t produced) {
  if (rc == Z_BUF_ERROR) return fmt::format("zlib stream is truncated after {} decompressed bytes", produced);
  return fmt::format("zlib stream is corrupt after {} decompressed bytes: {}", produced, inflater.message());
}

}  // namespace

// ---- Encoding -------------------------------------------------------------------

std::string encode_v2(const Histogram& histogram) {
  std::string out;
  put_be(out, kHdrV2PayloadCookie, 4);
  put_be(out, 0, 4);  // payload length, patched below
  put_be(out, 0, 4);  // normalizing index offset: pacer never shifts its counts
  put_be(out, static_cast<std::uint32_t>(histogram.significant_figures()), 4);
  put_be(out, static_cast<std::uint64_t>(histogram.lowest_discernible()), 8);
  put_be(out, static_cast<std::uint64_t>(histogram.highest_trackable()), 8);
  put_be(out, std::bit_cast<std::uint64_t>(1.0), 8);

  // Counts up to the max's index; a lone zero is written as 0, longer runs as -length.
  const int limit = histogram.index_of(histogram.max()) + 1;
  for (int i = 0; i < limit;) {
    const std::int64_t count = histogram.count_at_index(i++);
    if (count != 0) {
      put_varint(out, count);
      continue;
    }
    std::int64_t zeros = 1;
    while (i < limit && histogram.count_at_index(i) == 0) {
      ++zeros;
      ++i;
    }
    put_varint(out, zeros > 1 ? -zeros : 0);
  }
  const auto payload_bytes = static_cast<std::uint32_t>(out.size() - kPayloadHeaderBytes);
  for (int i = 0; i < 4; ++i) {
    out[4 + static_cast<std::size_t>(i)] = static_cast<char>((payload_bytes >> (24 - 8 * i)) & 0xff);
  }
  return out;
}

std::string encode_v2_compressed(const Histogram& histogram) {
  const std::string payload = encode_v2(histogram);
  uLongf compressed_bytes = compressBound(static_cast<uLong>(payload.size()));
  std::string out(kCompressedHeaderBytes + compressed_bytes, '\0');
  const int rc = compress2(reinterpret_cast<Bytef*>(out.data() + kCompressedHeaderBytes), &compressed_bytes,
                           reinterpret_cast<const Bytef*>(payload.data()), static_cast<uLong>(payload.size()),
                           Z_DEFAULT_COMPRESSION);
  if (rc != Z_OK) throw std::bad_alloc();  // compressBound makes Z_MEM_ERROR the only way here
  out.resize(kCompressedHeaderBytes + compressed_bytes);
  std::string header;
  put_be(header, kHdrV2CompressedCookie, 4);
  put_be(header, static_cast<std::uint32_t>(compressed_bytes), 4);
  std::memcpy(out.data(), header.data(), kCompressedHeaderBytes);
  return out;
}

std::string encode_v2_base64(const Histogram& histogram) { return base64_encode(encode_v2_compressed(histogram)); }

// ---- Decoding -------------------------------------------------------------------

Result<Histogram> decode_v2(std::string_view payload) {
  if (payload.size() < kPayloadHeaderBytes) {
    return bad_input(
        fmt::format("V2 payload is {} bytes, shorter than its {}-byte header", payload.size(), kPayloadHeaderBytes));
  }
  const V2Header header = parse_header(payload);
  if (cookie_base(header.cookie) != kV2PayloadCookieBase) {
    return bad_input(
        fmt::format("V2 payload cookie {}; expected 0x{:08x}", describe_cookie(header.cookie), kHdrV2PayloadCookie));
  }
  const std::size_t counts_bytes = payload.size() - kPayloadHeaderBytes;
  if (header.payload_bytes < 0 || static_cast<std::size_t>(header.payload_bytes) != counts_bytes) {
    return bad_input(fmt::format("V2 payload length field says {} bytes but {} follow the header", header.payload_bytes,
                                 counts_bytes));
  }
  // The normalizing index offset only rotates Java's physical storage of the same
  // logical counts, and the ratio only scales Java's double-valued views: neither
  // changes the counts, so both are ignored, as Java's Histogram decoder does.
  const Result<int> counts_len = layout_counts_len(header);
  if (!counts_len) return counts_len.error();

  const std::string_view counts = payload.substr(kPayloadHeaderBytes);
  const Result<CountsSummary> summary = walk_counts(counts, *counts_len, [](int, std::int64_t) {});
  if (!summary) return summary.error();

  Histogram histogram(header.lowest_discernible, header.highest_trackable, header.significant_figures);
  // Java reports a decoded min as its bucket's lowest value and max as its bucket's
  // highest: record every count at its bucket's lowest value, and one count of the
  // highest bucket at that bucket's highest value (capped so it is not "clamped").
  // Counts Java kept past highest_trackable (its array's last bucket runs beyond
  // it) go to highest_trackable's bucket, at that bucket's lowest value like any
  // other count, so that min is a bucket's lowest value whatever the indexes (and
  // a decode re-encodes to the same histogram).
  const int top = summary->highest_index;
  const std::int64_t cap = histogram.highest_trackable();
  const std::int64_t cap_lowest = histogram.lowest_equivalent(cap);
  const Result<CountsSummary> replay = walk_counts(counts, *counts_len, [&](int index, std::int64_t count) {
    const std::int64_t lowest = std::min(histogram.value_at_index(index), cap_lowest);
    if (index != top) {
      histogram.record_n(lowest, count);
      return;
    }
    histogram.record_n(lowest, count - 1);
    histogram.record(std::min(histogram.highest_equivalent(lowest), cap));
  });
  if (!replay) return replay.error();
  return histogram;
}

Result<Histogram> decode_v2_compressed(std::string_view bytes) {
  if (bytes.size() < kCompressedHeaderBytes) {
    return bad_input(fmt::format("compressed histogram is {} bytes, shorter than its {}-byte header", bytes.size(),
                                 kCompressedHeaderBytes));
  }
  const auto cookie = static_cast<std::uint32_t>(get_be(bytes, 0, 4));
  if (cookie_base(cookie) != kV2CompressedCookieBase) {
    return bad_input(fmt::format("compressed histogram cookie {}; expected 0x{:08x}", describe_cookie(cookie),
                                 kHdrV2CompressedCookie));
  }
  const auto declared = static_cast<std::int32_t>(static_cast<std::uint32_t>(get_be(bytes, 4, 4)));
  const std::string_view deflated = bytes.substr(kCompressedHeaderBytes);
  if (declared < 0 || static_cast<std::size_t>(declared) != deflated.size()) {
    return bad_input(
        fmt::format("compressed length field says {} bytes but {} follow the header", declared, deflated.size()));
  }

  Inflater inflater(deflated);
  if (!inflater.initialized()) throw std::bad_alloc();  // inflateInit fails only for memory
  std::string payload;
  int rc = inflater.inflate_to(payload, kPayloadHeaderBytes);
  if (rc != Z_OK && rc != Z_STREAM_END) return bad_input(zlib_failure(rc, inflater, payload.size()));
  if (payload.size() < kPayloadHeaderBytes) {
    return bad_input(fmt::format("zlib stream ends after {} bytes, inside the {}-byte V2 header", payload.size(),
                                 kPayloadHeaderBytes));
  }
  // Bound the rest by what the header's layout can need before inflating it.
  const V2Header header = parse_header(payload);
  if (cookie_base(header.cookie) != kV2PayloadCookieBase) return decode_v2(payload);  // reports the cookie
  const Result<int> counts_len = layout_counts_len(header);
  if (!counts_len) return counts_len.error();
  const std::size_t max_counts_bytes = static_cast<std::size_t>(*counts_len) * kMaxVarintBytes;
  if (header.payload_bytes < 0 || static_cast<std::size_t>(header.payload_bytes) > max_counts_bytes) {
    return bad_input(fmt::format("V2 payload length field says {} bytes; the layout's {} counts need at most {}",
                                 header.payload_bytes, *counts_len, max_counts_bytes));
  }
  const std::size_t expected = kPayloadHeaderBytes + static_cast<std::size_t>(header.payload_bytes);
  if (rc != Z_STREAM_END) rc = inflater.inflate_to(payload, expected);
  if (rc == Z_OK) rc = inflater.inflate_to(payload, expected + 1);  // must end exactly here
  if (payload.size() > expected) {
    return bad_input(fmt::format("zlib stream holds more than the {} bytes the V2 header declares", expected));
  }
  if (rc != Z_STREAM_END) return bad_input(zlib_failure(rc, inflater, payload.size()));
  if (payload.size() != expected) {
    return bad_input(fmt::format("zlib stream holds {} bytes but the V2 header declares {}", payload.size(), expected));
  }
  if (inflater.unread_input() != 0) {
    return bad_input(fmt::format("{} bytes follow the end of the zlib stream", inflater.unread_input()));
  }
  return decode_v2(payload);
}

Result<Histogram> decode_v2_base64(std::string_view text) {
  const auto is_space = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
  while (!text.empty() && is_space(text.front())) text.remove_prefix(1);
  while (!text.empty() && is_space(text.back())) text.remove_suffix(1);
  const Result<std::string> bytes = base64_decode(text);
  if (!bytes) return bytes.error();
  return decode_v2_compressed(*bytes);
}

}  // namespace pacer::stats
