// Base64 in RFC 4648's standard alphabet, padded, without line breaks: the JSON
// report's HdrHistogram text (stats/hdr_codec.h) and a proxy's Basic credentials
// (proxy/proxy_url.h). Any thread.
#pragma once

#include <string>
#include <string_view>

#include "core/expected.h"

namespace pacer {

std::string base64_encode(std::string_view in);
// Strict: a length that is a multiple of 4, '=' only at the end; errors
// (kBadInput) name the offending length or byte and its offset.
Result<std::string> base64_decode(std::string_view in);

}  // namespace pacer
