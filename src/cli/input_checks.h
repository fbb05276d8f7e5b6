// Checks made once every run option is known, before anything is sent or
// written: the -H headers against the framing pacer builds for the request, and
// every file the run will write. Errors are kBadArgument (exit 2) naming the
// option, the header or path, and the reason. Pure but for stat/access; main thread.
#pragma once

#include "core/config.h"
#include "core/expected.h"

namespace pacer::cli {

// pacer frames every request itself: Content-Length when there is a body (-b),
// nothing otherwise; HTTP/2 carries no connection-specific fields. Refused: a
// Content-Length that is not the body's size (0 without a body), any
// Transfer-Encoding, and with --http2 Connection, Keep-Alive, Proxy-Connection,
// Transfer-Encoding, Upgrade and a TE other than "trailers" (RFC 9113 8.2.2).
Status check_request_headers(const Config& config);

// Each of config.output_files() can be written (core/atomic_file.h), and no two
// name the same regular file.
Status check_output_files(const Config& config);

}  // namespace pacer::cli
