// HdrHistogram's V2 encoding, byte for byte as the Java and C reference
// implementations write it, so that HistogramLogReader and
// Histogram.decodeFromCompressedByteBuffer read pacer's histograms and pacer reads
// theirs. Three layers, each the input of the next:
//   V2 payload:  40-byte big-endian header (cookie, payload length, normalizing
//                index offset, significant figures, lowest discernible, highest
//                trackable, integer-to-double ratio) + the counts up to the max's
//                index as ZigZag LEB128-64b9B varints, a run of zeros as -length;
//   compressed:  cookie, length, zlib deflate of the payload;
//   base64:      the compressed bytes in the standard alphabet, padded (the
//                "HISTF..." strings of .hlog files).
// V2 stores neither min nor max: a decoded histogram's min is the lowest value of
// its lowest non-empty bucket and its max the highest value of its highest one
// (capped at highest_trackable), as the Java decoder reports them; a histogram
// holding one value decodes with min == max == that bucket's highest value.
// Pure functions, safe from any thread; decoding allocates in proportion to the
// input and never more than the layout named by its header.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/expected.h"
#include "stats/histogram.h"

namespace pacer::stats {

// The V2 cookies with the word-size nibble 0x10 that marks ZigZag varint counts;
// decoders accept any nibble on the V2 bases 0x1c849303 / 0x1c849304.
inline constexpr std::uint32_t kHdrV2PayloadCookie = 0x1c849313;
inline constexpr std::uint32_t kHdrV2CompressedCookie = 0x1c849314;

// The uncompressed V2 payload (header + varint counts).
std::string encode_v2(const Histogram& histogram);

// The payload wrapped in the compressed envelope, deflated at zlib's default level
// (what Java's encodeIntoCompressedByteBuffer(buffer) and HdrHistogram_c write).
std::string encode_v2_compressed(const Histogram& histogram);

// encode_v2_compressed in standard base64 with padding, no line breaks.
std::string encode_v2_base64(const Histogram& histogram);

// The inverses. Errors are ErrorKind::kBadInput with a message naming what is
// wrong (and where): a bad cookie or length field, a layout pacer cannot hold,
// a corrupt zlib stream, a truncated varint, counts past the layout's end.
// decode_v2_base64 ignores leading and trailing whitespace.
Result<Histogram> decode_v2(std::string_view payload);
Result<Histogram> decode_v2_compressed(std::string_view bytes);
Result<Histogram> decode_v2_base64(std::string_view text);

}  // namespace pacer::stats
