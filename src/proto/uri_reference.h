// URI reference resolution as RFC 3986 section 5 says: a reference (a
// redirect's Location, a --targets URL) against a base URI, with dot segments
// removed (5.2.4) and relative paths merged (5.2.3), the strict parser's way
// (5.2.2: a reference with a scheme is absolute, whatever the base's scheme).
// Writes into a caller's string, so a reserved one is never reallocated (the
// redirect path allocates nothing per request). Pure; any thread.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace pacer::proto {

// The longest URL pacer sends or resolves, in bytes (the command line's, a
// target's, a scenario's path): what common servers accept in a request line
// (nginx's 8 KiB header buffers). Longer is refused naming the cap.
constexpr std::size_t kMaxUrlBytes = 8 * 1024;

// A URI reference's five components (RFC 3986 appendix B); views into the text.
struct UriParts {
  std::string_view scheme;
  std::string_view authority;
  std::string_view path;
  std::string_view query;
  std::string_view fragment;
  bool has_scheme = false;
  bool has_authority = false;
  bool has_query = false;
  bool has_fragment = false;
};

// Splits `text` per appendix B; a scheme counts only when it is one
// (ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) before the first ':', '/', '?', '#').
UriParts split_uri(std::string_view text);

// RFC 3986 5.2.4 on out[from, end), in place (the result is never longer).
void remove_dot_segments(std::string& out, std::size_t from = 0);

// Appends to out the target URI of `reference` against `base` (5.2.2), recomposed
// as 5.3 says (scheme ":" "//" authority path "?" query "#" fragment).
void resolve_reference(const UriParts& base, const UriParts& reference, std::string& out);

}  // namespace pacer::proto
