// See printable_json.h.
#include "report/printable_json.h"

#include "stats/name_table.h"

namespace pacer::report {

namespace {

bool needs_printing(const std::string& text) { return stats::printable_name(text) != text; }

}  // namespace

void make_printable(nlohmann::ordered_json& node) {
  if (node.is_string()) {
    auto& text = node.get_ref<std::string&>();
    if (needs_printing(text)) text = stats::printable_name(text);
  } else if (node.is_array()) {
    for (auto& item : node) make_printable(item);
  } else if (node.is_object()) {
    bool keys_printable = true;
    for (auto& [key, value] : node.items()) {
      make_printable(value);
      keys_printable = keys_printable && !needs_printing(key);
    }
    if (keys_printable) return;
    nlohmann::ordered_json printed = nlohmann::ordered_json::object();  // keys cannot change in place
    for (auto& [key, value] : node.items()) printed[stats::printable_name(key)] = std::move(value);
    node = std::move(printed);
  }
}

std::string dump_printable(nlohmann::ordered_json& doc, int indent) {
  make_printable(doc);
  return doc.dump(indent);
}

}  // namespace pacer::report
