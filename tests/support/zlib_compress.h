// Test helper: a body compressed with zlib in one go (gzip or HTTP's deflate),
// for the --compressed tests' responses.
#pragma once

#include <gtest/gtest.h>
#include <zlib.h>

#include <string>

namespace pacer::testing {

// window_bits: 15 + 16 gzip, 15 zlib (HTTP's deflate).
inline std::string zlib_compress(const std::string& in, int window_bits, int level = 6) {
  z_stream z{};
  deflateInit2(&z, level, Z_DEFLATED, window_bits, 8, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&z, static_cast<uLong>(in.size())), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = static_cast<uInt>(in.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&z, Z_FINISH), Z_STREAM_END);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

}  // namespace pacer::testing
