// The remote-write 1.0 request body (docs/prometheus.md): the families as a
// protobuf WriteRequest (each series one sample at `timestamp_ms`, labels
// sorted by name with __name__ among them; a histogram as its _bucket, _sum and
// _count series; each family's metadata), compressed with snappy's block
// format. The messages are few and fixed (src/prom/remote_write.proto), so they
// are encoded here by hand rather than through generated code. Pure; any thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "prom/metrics.h"

namespace pacer::prom {

// The WriteRequest, uncompressed.
std::string encode_write_request(const std::vector<Family>& families, std::int64_t timestamp_ms);
// snappy block format (what Content-Encoding: snappy means for remote write).
std::string snappy_compress(std::string_view bytes);
// The inverse; false if `bytes` is not valid snappy (tests, and a fake receiver).
bool snappy_uncompress(std::string_view bytes, std::string& out);

// The body of one push: encode_write_request compressed.
inline std::string write_request_body(const std::vector<Family>& families, std::int64_t timestamp_ms) {
  return snappy_compress(encode_write_request(families, timestamp_ms));
}

}  // namespace pacer::prom
