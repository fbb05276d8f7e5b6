// The text targets format, as vegeta writes it:
//
//   # a comment
//   GET /api/items?id=1
//   X-Account: 7
//
//   POST http://host:8080/api/orders
//   Content-Type: application/json
//   @bodies/order.json
//
// A target is "METHOD URL", then "Name: value" header lines, then an optional
// "@path" body line; a blank line (or the next "METHOD URL" line) ends it.
#include "targets/text_format.h"

#include <fmt/format.h>

#include "targets/parse_common.h"

namespace pacer::targets::detail {

namespace {

std::string_view trim(std::string_view text) {
  const std::size_t first = text.find_first_not_of(" \t");
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(" \t") - first + 1);
}

// "METHOD URL": the two fields, or nothing if the line is not of that shape.
bool split_request_line(std::string_view line, std::string_view& method, std::string_view& url) {
  const std::size_t space = line.find_first_of(" \t");
  if (space == std::string_view::npos) return false;
  method = line.substr(0, space);
  url = trim(line.substr(space));
  return !url.empty() && url.find_first_of(" \t") == std::string_view::npos;
}

class TextParser {
 public:
  TextParser(const TargetSource& source, TargetList& out, std::optional<Target> origin)
      : source_(source), out_(out), origin_(std::move(origin)) {}

  Status line(std::string_view raw, std::size_t number) {
    if (!raw.empty() && raw.back() == '\r') raw.remove_suffix(1);
    const std::string_view text = trim(raw);
    const std::string at = where(source_, number);
    if (text.starts_with('#')) return Ok{};
    if (text.empty()) return end_target();
    if (!open_) return start_target(text, at);
    if (body_seen_) return fail_at(at, "a line after the @body line (a blank line ends the target)");
    if (text.front() == '@') {
      auto body = read_body_file(trim(text.substr(1)), source_, at);
      if (!body) return body.error();
      current_.body = std::move(*body);
      body_seen_ = true;
      return Ok{};
    }
    const std::size_t colon = text.find(':');
    if (colon != std::string_view::npos && is_token(text.substr(0, colon))) {
      const std::string_view value = trim(text.substr(colon + 1));
      if (!is_field_value(value)) {
        return fail_at(at, fmt::format("header '{}': a control character (CR, NUL, ...) in its value",
                                       text.substr(0, colon)));
      }
      current_.headers.push_back(Header{std::string(text.substr(0, colon)), std::string(value)});
      return Ok{};
    }
    std::string_view method;
    std::string_view url;
    if (split_request_line(text, method, url) && is_known_method(method)) {  // the next target, vegeta-style
      if (Status ended = end_target(); !ended) return ended;
      return start_target(text, at);
    }
    return fail_at(at, fmt::format("header line without a colon: '{}'", text));
  }

  Status end_target() {
    if (!open_) return Ok{};
    open_ = false;
    if (Status checked = finish_target(current_, current_.where); !checked) return checked;
    if (out_.targets.size() >= kMaxTargets) {
      return fail_at(current_.where, fmt::format("more than {} targets", kMaxTargets));
    }
    out_.targets.push_back(std::move(current_));
    return Ok{};
  }

  const std::optional<Target>& origin() const { return origin_; }

 private:
  Status start_target(std::string_view text, const std::string& at) {
    std::string_view method;
    std::string_view url;
    if (!split_request_line(text, method, url)) {
      return fail_at(at, fmt::format("expected a target line 'METHOD URL', got '{}'", text));
    }
    if (!is_known_method(method)) {
      return fail_at(at, fmt::format("unknown method '{}' (GET, HEAD, POST, PUT, DELETE, PATCH, OPTIONS, TRACE or "
                                     "CONNECT)",
                                     method));
    }
    auto path = resolve_url(url, origin_, source_, at);
    if (!path) return path.error();
    current_ = RequestTarget{};
    current_.method = std::string(method);
    current_.path = std::move(*path);
    current_.where = at;
    open_ = true;
    body_seen_ = false;
    return Ok{};
  }

  const TargetSource& source_;
  TargetList& out_;
  std::optional<Target> origin_;
  RequestTarget current_;
  bool open_ = false;
  bool body_seen_ = false;
};

}  // namespace

// The file's first absolute target URL, when the command line gave none (note_origin).
std::optional<Target> first_origin(std::string_view text, const TargetSource& source) {
  std::optional<Target> origin = source.base;
  while (!text.empty() && !origin) {
    const std::size_t end = text.find('\n');
    std::string_view method;
    std::string_view url;
    if (split_request_line(trim(text.substr(0, end)), method, url) && is_known_method(method)) note_origin(url, origin);
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
  }
  return origin;
}

Status parse_text_targets(std::string_view text, const TargetSource& source, TargetList& out) {
  TextParser parser(source, out, first_origin(text, source));
  std::size_t number = 0;
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    ++number;
    if (Status s = parser.line(text.substr(0, end), number); !s) return s;
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
  }
  if (Status s = parser.end_target(); !s) return s;
  if (parser.origin()) out.origin = *parser.origin();
  return Ok{};
}

}  // namespace pacer::targets::detail
