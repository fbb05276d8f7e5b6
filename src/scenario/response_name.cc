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
    proto::for_each_captured_field(capture.fields, [&](std::string_view name, std::string_view value) {
      if (name.size() != where.size() || strncasecmp(name.data(), where.data(), name.size()) != 0) return true;
      scratch.assign(value.substr(0, kMaxResponseNameBytes));
      return false;
    });
    return scratch;
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
