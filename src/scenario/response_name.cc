// See response_name.h.
#include "scenario/response_name.h"

#include <strings.h>

#include <nlohmann/json.hpp>

namespace pacer::scenario {

bool valid_json_pointer(std::string_view text) {
  if (text.empty()) return true;
  if (text.front() != '/') return false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '~' && (i + 1 == text.size() || (text[i + 1] != '0' && text[i + 1] != '1'))) return false;
  }
  return true;
}

std::string_view response_name(const proto::ResponseCapture& capture, NameFrom from, std::string_view where,
                               std::string& scratch) {
  scratch.clear();
  if (from == NameFrom::kHeader) {
    std::string_view fields = capture.fields;  // "name\0value\0" per header
    while (!fields.empty()) {
      const std::size_t name_end = fields.find('\0');
      const std::size_t value_end = fields.find('\0', name_end + 1);
      if (value_end == std::string_view::npos) break;
      const std::string_view name = fields.substr(0, name_end);
      if (name.size() == where.size() && strncasecmp(name.data(), where.data(), name.size()) == 0) {
        scratch.assign(fields.substr(name_end + 1, std::min(value_end - name_end - 1, kMaxResponseNameBytes)));
        return scratch;
      }
      fields.remove_prefix(value_end + 1);
    }
    return {};
  }
  if (from != NameFrom::kJson) return {};
  const nlohmann::json doc = nlohmann::json::parse(capture.body, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return {};
  const nlohmann::json::json_pointer pointer{std::string(where)};  // checked at the call (valid_json_pointer)
  if (!doc.contains(pointer)) return {};
  const nlohmann::json& value = doc.at(pointer);
  if (value.is_string()) {
    scratch = value.get<std::string>();
  } else if (value.is_number()) {
    scratch = value.dump();
  } else {
    return {};
  }
  if (scratch.size() > kMaxResponseNameBytes) scratch.resize(kMaxResponseNameBytes);
  return scratch;
}

}  // namespace pacer::scenario
