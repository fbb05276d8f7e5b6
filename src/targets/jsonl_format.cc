// The JSON Lines targets format: one object per line,
//
//   {"method":"POST","url":"/api/orders","header":{"Content-Type":["application/json"]},
//    "body":"<base64>","name":"create order","weight":3}
//
// (on one line). url is required; method defaults to GET; "body_text" gives a
// literal body instead of "body"'s base64; header values are a string or an
// array of strings (one header line each). Blank lines are skipped; any other
// field is an error (a typo would otherwise be silently ignored).
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "targets/parse_common.h"
#include "targets/text_format.h"

namespace pacer::targets::detail {

namespace {

using json = nlohmann::json;

Result<std::string> string_field(const json& value, const char* field, const std::string& at) {
  if (!value.is_string()) return fail_at(at, fmt::format("\"{}\" must be a string, got {}", field, value.type_name()));
  return value.get<std::string>();
}

Status read_headers(const json& value, RequestTarget& target, const std::string& at) {
  if (!value.is_object()) return fail_at(at, fmt::format("\"header\" must be an object, got {}", value.type_name()));
  for (const auto& [name, values] : value.items()) {
    if (!is_token(name)) return fail_at(at, fmt::format("header name '{}' is not a valid HTTP token", name));
    const json list = values.is_array() ? values : json::array({values});
    for (const json& v : list) {
      if (!v.is_string()) {
        return fail_at(at, fmt::format("header '{}': values must be strings, got {}", name, v.type_name()));
      }
      const std::string text = v.get<std::string>();
      if (!is_field_value(text)) {
        return fail_at(at, fmt::format("header '{}': a control character (CR, LF, NUL, ...) in its value", name));
      }
      target.headers.push_back(Header{name, text});
    }
  }
  return Ok{};
}

Status read_field(const std::string& key, const json& value, RequestTarget& target, std::optional<Target>& origin,
                  const TargetSource& source, const std::string& at) {
  if (key == "method") {
    auto method = string_field(value, "method", at);
    if (!method) return method.error();
    if (!is_known_method(*method)) return fail_at(at, fmt::format("unknown method '{}'", *method));
    target.method = *method;
  } else if (key == "url") {
    auto url = string_field(value, "url", at);
    if (!url) return url.error();
    auto path = resolve_url(*url, origin, source, at);
    if (!path) return path.error();
    target.path = *path;
  } else if (key == "header") {
    return read_headers(value, target, at);
  } else if (key == "body" || key == "body_text") {
    if (target.body) return fail_at(at, "both \"body\" and \"body_text\" (give one)");
    auto text = string_field(value, key.c_str(), at);
    if (!text) return text.error();
    if (key == "body_text") {
      target.body = *text;
    } else if (auto decoded = decode_base64(*text)) {
      target.body = std::move(*decoded);
    } else {
      return fail_at(at, "\"body\" is not valid base64 (use \"body_text\" for a literal body)");
    }
    if (target.body->size() > source.max_body_bytes) {
      return fail_at(at, fmt::format("the body holds more than --max-request-body ({} bytes)", source.max_body_bytes));
    }
  } else if (key == "name") {
    auto name = string_field(value, "name", at);
    if (!name) return name.error();
    target.name = *name;
  } else if (key == "weight") {
    if (!value.is_number_integer() || value.get<std::int64_t>() < 1 || value.get<std::int64_t>() > kMaxWeight) {
      return fail_at(at, fmt::format("\"weight\" must be an integer from 1 to {}, got {}", kMaxWeight, value.dump()));
    }
    target.weight = value.get<std::uint32_t>();
  } else {
    return fail_at(at, fmt::format("unknown field \"{}\" (method, url, header, body, body_text, name, weight)", key));
  }
  return Ok{};
}

Status parse_line(std::string_view text, const TargetSource& source, const std::string& at,
                  std::optional<Target>& origin, TargetList& out) {
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::exception& e) {
    std::string what = e.what();
    if (const std::size_t cut = what.find("] "); cut != std::string::npos) what.erase(0, cut + 2);
    return fail_at(at, "not valid JSON: " + what);
  }
  if (!doc.is_object()) return fail_at(at, fmt::format("expected a JSON object, got {}", doc.type_name()));
  if (!doc.contains("url")) return fail_at(at, "the target has no \"url\"");
  RequestTarget target;
  // The URL first, so a relative one resolves the same whatever the field order.
  if (Status s = read_field("url", doc["url"], target, origin, source, at); !s) return s;
  for (const auto& [key, value] : doc.items()) {
    if (key == "url") continue;
    if (Status s = read_field(key, value, target, origin, source, at); !s) return s;
  }
  if (Status s = finish_target(target, at); !s) return s;
  if (out.targets.size() >= kMaxTargets) return fail_at(at, fmt::format("more than {} targets", kMaxTargets));
  out.targets.push_back(std::move(target));
  return Ok{};
}

}  // namespace

Status parse_jsonl_targets(std::string_view text, const TargetSource& source, TargetList& out) {
  std::optional<Target> origin = source.base;
  // The file's first absolute "url" is the origin when the command line gave none
  // (note_origin); a line that does not parse is left to the pass below.
  for (std::string_view rest = text; !rest.empty() && !origin;) {
    const std::size_t end = rest.find('\n');
    const json doc = json::parse(rest.substr(0, end), nullptr, false);
    if (doc.is_object() && doc.contains("url") && doc["url"].is_string()) {
      note_origin(doc["url"].get<std::string>(), origin);
    }
    rest.remove_prefix(end == std::string_view::npos ? rest.size() : end + 1);
  }
  std::size_t number = 0;
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
    ++number;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    if (Status s = parse_line(line, source, where(source, number), origin, out); !s) return s;
  }
  if (origin) out.origin = *origin;
  return Ok{};
}

}  // namespace pacer::targets::detail
