// What both targets formats share: messages at FILE:LINE, methods, resolving a
// URL against the run's origin, reading an @body file, decoding base64. Internal
// to src/targets/.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/config.h"
#include "core/expected.h"
#include "targets/target_file.h"

namespace pacer::targets::detail {

// "FILE:LINE"
std::string where(const TargetSource& source, std::size_t line);
// kBadInput "FILE:LINE: reason".
Error fail_at(const std::string& where, std::string_view reason);

// The methods a target may use (RFC 9110's and PATCH).
bool is_known_method(std::string_view method);
// RFC 9110 tchar+ (a header name).
bool is_token(std::string_view text);
// RFC 9110 field-value bytes: no control character but HTAB (so no CR, LF, NUL, DEL).
bool is_field_value(std::string_view text);

// The path (origin-form) of `url` for this run: a path ("/x?y") or a relative
// reference ("x", "?y") resolved against the base URL, or an absolute http(s)
// URL of the run's origin. The first absolute URL sets the origin when the
// command line gave none; another origin is an error naming both.
// Before a file is parsed without a command-line URL: `url`, when it is the first
// absolute one seen (origin still unset) and parses, becomes the run's origin, so
// that targets before it with paths resolve against it (docs/targets.md: "the file's
// first absolute URL"). Anything else is left to resolve_url's checks.
void note_origin(std::string_view url, std::optional<Target>& origin);

Result<std::string> resolve_url(std::string_view url, std::optional<Target>& origin, const TargetSource& source,
                                const std::string& at);

// The bytes of an @body file (relative to source.body_dir), within the cap.
Result<std::string> read_body_file(std::string_view path, const TargetSource& source, const std::string& at);

// Standard base64 (padding optional, no whitespace inside); nullopt if malformed.
std::optional<std::string> decode_base64(std::string_view text);

// Checks and completes a parsed target: its weight, its name's length.
Status finish_target(RequestTarget& target, const std::string& at);

}  // namespace pacer::targets::detail
