// See request_options.h.
#include "cli/request_options.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <string_view>

#include <fmt/format.h>

#include "cli/run_draft.h"
#include "cli/units.h"

namespace pacer::cli::request {

namespace {

// RFC 9110 tchar.
bool is_token(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) ||
           std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
  });
}

std::string_view trim_whitespace(std::string_view text) {
  const std::size_t first = text.find_first_not_of(" \t");
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(" \t") - first + 1);
}

// --max-names: distinct request names kept before "(other)", 1 to 100,000 (each
// costs every worker a record and its interval slots before the run).
Result<std::uint64_t> parse_max_names(const ScannedOption& option) {
  constexpr std::uint64_t kMostNames = 100'000;
  auto count = parse_count(option.value, option.flag);
  if (!count) return count.error();
  if (*count < 1 || *count > kMostNames) {
    return bad_argument(fmt::format("{}: expected 1 to {} names, got {}", option.flag, kMostNames, option.value));
  }
  return *count;
}

Result<Header> parse_header(const ScannedOption& option) {
  const std::string_view text = option.value;
  const std::size_t colon = text.find(':');
  const std::string_view name = text.substr(0, colon);
  if (text.find_first_of(std::string_view("\r\n\0", 3)) != std::string_view::npos) {
    return bad_argument(fmt::format(
        "{}: header contains CR, LF or NUL, which would break the request apart", option.flag));
  }
  if (colon == std::string_view::npos) {
    return bad_argument(fmt::format("{}: header '{}' has no ':' (expected \"Name: value\")",
                                    option.flag, text));
  }
  if (name.empty()) {
    return bad_argument(fmt::format("{}: header '{}' has an empty name", option.flag, text));
  }
  if (!is_token(name)) {
    return bad_argument(fmt::format("{}: header name '{}' is not a valid HTTP token",
                                    option.flag, name));
  }
  return Header{std::string(name), std::string(trim_whitespace(text.substr(colon + 1)))};
}

}  // namespace

Result<std::string> parse_method(const ScannedOption& option) {
  if (!is_token(option.value)) {
    return bad_argument(fmt::format(
        "{}: method '{}' is not an HTTP token (letters, digits and !#$%&'*+-.^_`|~)",
        option.flag, option.value));
  }
  return option.value;
}

namespace {

Status apply_header(const ScannedOption& option, RunDraft& draft) {
  auto header = parse_header(option);
  if (!header) return header.error();
  draft.config.headers.push_back(std::move(*header));
  return Ok{};
}

constexpr std::array<RunOptionRow, 6> kRows{{
    {{opt::kHeader, 'H', "header", true}, &apply_header},
    {{opt::kMaxRequestBody, '\0', "max-request-body", true},
     [](const ScannedOption& o, RunDraft& d) {
       return store(parse_byte_size(o.value, o.flag), d.config.max_request_body_bytes);
     }},
    {{opt::kMaxCaptureHeaders, '\0', "max-capture-headers", true},
     [](const ScannedOption& o, RunDraft& d) { return store(parse_count(o.value, o.flag), d.config.max_capture_headers); }},
    {{opt::kMaxCaptureHeaderBytes, '\0', "max-capture-header-bytes", true},
     [](const ScannedOption& o, RunDraft& d) {
       return store(parse_byte_size(o.value, o.flag), d.config.max_capture_header_bytes);
     }},
    {{opt::kMaxCaptureBody, '\0', "max-capture-body", true},
     [](const ScannedOption& o, RunDraft& d) {
       return store(parse_byte_size(o.value, o.flag), d.config.max_capture_body_bytes);
     }},
    {{opt::kMaxNames, '\0', "max-names", true},
     [](const ScannedOption& o, RunDraft& d) { return store(parse_max_names(o), d.config.max_names); }},
}};

}  // namespace

std::span<const RunOptionRow> option_rows() { return kRows; }

}  // namespace pacer::cli::request
