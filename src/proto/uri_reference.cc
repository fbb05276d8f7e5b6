// See uri_reference.h. remove_dot_segments works on one buffer: the output
// is a prefix [0, w) of the part being processed and the input its rest [r, end),
// and w <= r always holds, since each step writes at most what it consumed.
#include "proto/uri_reference.h"

#include <algorithm>
#include <cctype>

namespace pacer::proto {

namespace {

bool is_scheme(std::string_view s) {
  if (s.empty() || std::isalpha(static_cast<unsigned char>(s.front())) == 0) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '+' || c == '-' || c == '.';
  });
}

void append_path_without_dots(const UriParts& from, std::string& out, std::size_t path_start) {
  out.append(from.path);
  remove_dot_segments(out, path_start);
}

}  // namespace

UriParts split_uri(std::string_view text) {
  UriParts p;
  const std::size_t colon = text.find(':');
  if (colon != std::string_view::npos && colon < text.find_first_of("/?#") && is_scheme(text.substr(0, colon))) {
    p.scheme = text.substr(0, colon);
    p.has_scheme = true;
    text.remove_prefix(colon + 1);
  }
  if (const std::size_t hash = text.find('#'); hash != std::string_view::npos) {
    p.fragment = text.substr(hash + 1);
    p.has_fragment = true;
    text = text.substr(0, hash);
  }
  if (const std::size_t q = text.find('?'); q != std::string_view::npos) {
    p.query = text.substr(q + 1);
    p.has_query = true;
    text = text.substr(0, q);
  }
  if (text.starts_with("//")) {
    text.remove_prefix(2);
    const std::size_t slash = text.find('/');
    p.authority = text.substr(0, slash);
    p.has_authority = true;
    text = slash == std::string_view::npos ? std::string_view() : text.substr(slash);
  }
  p.path = text;
  return p;
}

void remove_dot_segments(std::string& out, std::size_t from) {
  std::size_t r = from;  // input
  std::size_t w = from;  // output end
  const auto input = [&]() { return std::string_view(out).substr(r); };
  const auto drop_last_segment = [&]() {
    const std::size_t slash = std::string_view(out.data() + from, w - from).rfind('/');
    w = slash == std::string_view::npos ? from : from + slash;
  };
  while (r < out.size()) {
    const std::string_view in = input();
    if (in.starts_with("../")) {
      r += 3;  // A
    } else if (in.starts_with("./")) {
      r += 2;  // A
    } else if (in.starts_with("/./")) {
      r += 2;  // B: "/./" -> "/"
    } else if (in == "/.") {
      out[++r] = '/';  // B: "/." -> "/"
    } else if (in.starts_with("/../")) {
      r += 3;  // C
      drop_last_segment();
    } else if (in == "/..") {
      r += 2;
      out[r] = '/';  // C
      drop_last_segment();
    } else if (in == "." || in == "..") {
      r = out.size();  // D
    } else {
      const std::size_t end = in.find('/', 1);  // E: the first segment, with its leading '/'
      const std::size_t n = end == std::string_view::npos ? in.size() : end;
      std::copy(out.begin() + static_cast<std::ptrdiff_t>(r), out.begin() + static_cast<std::ptrdiff_t>(r + n),
                out.begin() + static_cast<std::ptrdiff_t>(w));
      w += n;
      r += n;
    }
  }
  out.resize(w);
}

void resolve_reference(const UriParts& base, const UriParts& ref, std::string& out) {
  const UriParts* authority_from = &ref;
  const UriParts* query_from = &ref;
  const std::string_view scheme = ref.has_scheme ? ref.scheme : base.scheme;
  if (!ref.has_scheme && !ref.has_authority) {
    authority_from = &base;
    if (ref.path.empty() && !ref.has_query) query_from = &base;
  }
  if (ref.has_scheme || base.has_scheme) out.append(scheme).append(":");
  if (authority_from->has_authority) out.append("//").append(authority_from->authority);
  const std::size_t path_start = out.size();
  if (ref.has_scheme || ref.has_authority || ref.path.starts_with('/')) {
    append_path_without_dots(ref, out, path_start);
  } else if (ref.path.empty()) {
    out.append(base.path);
  } else {
    // 5.2.3 merge: the base path up to its last '/' (just "/" for a base with an
    // authority and an empty path), then the reference's path.
    if (base.has_authority && base.path.empty()) {
      out.append("/");
    } else {
      const std::size_t slash = base.path.rfind('/');
      if (slash != std::string_view::npos) out.append(base.path.substr(0, slash + 1));
    }
    append_path_without_dots(ref, out, path_start);
  }
  if (query_from->has_query) out.append("?").append(query_from->query);
  if (ref.has_fragment) out.append("#").append(ref.fragment);
}

}  // namespace pacer::proto
