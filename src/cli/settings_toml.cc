// See settings_toml.h.
#include "cli/settings_toml.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#include <fmt/format.h>

#include "cli/secrets.h"
#include "stats/name_table.h"

namespace pacer::cli {
namespace {

// The UTF-8 character at text[at]: its length (0 when the bytes there are not one)
// and, when it must be escaped (a control: stats::printable_name's rule), its code point.
struct Character {
  std::size_t length = 0;
  bool escaped = false;
  std::uint32_t code_point = 0;
};

Character character_at(std::string_view text, std::size_t at) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[at + i]); };
  const unsigned char lead = byte(0);
  if (lead < 0x80) return {1, lead < 0x20 || lead == 0x7F, lead};
  const std::size_t n = (lead & 0xE0) == 0xC0 ? 2 : (lead & 0xF0) == 0xE0 ? 3 : (lead & 0xF8) == 0xF0 ? 4 : 0;
  if (n == 0 || at + n > text.size()) return {};
  std::uint32_t cp = lead & (0x7Fu >> n);
  for (std::size_t i = 1; i < n; ++i) {
    if ((byte(i) & 0xC0) != 0x80) return {};
    cp = (cp << 6) | (byte(i) & 0x3Fu);
  }
  const bool overlong = cp < (n == 2 ? 0x80u : n == 3 ? 0x800u : 0x10000u);
  if (overlong || (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF) return {};
  return {n, stats::printable_name(text.substr(at, n)) != text.substr(at, n), cp};
}

// A setting's value in TOML: a number when it reads back as the same text, else a string.
std::string toml_value(std::string_view text) {
  const std::string_view digits = text.starts_with('-') ? text.substr(1) : text;
  const bool is_integer = !digits.empty() && digits.size() <= 18 && (digits == "0" || digits[0] != '0') &&
                          digits.find_first_not_of("0123456789") == std::string_view::npos && text != "-0";
  return is_integer ? std::string(text) : toml_string(text);
}

}  // namespace

std::string toml_string(std::string_view text) {
  std::string out = "\"";
  for (std::size_t at = 0; at < text.size();) {
    const char c = text[at];
    const Character ch = character_at(text, at);
    if (ch.length == 0) {
      out += "\\uFFFD";
      ++at;
      continue;
    }
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (ch.escaped) {
      out += ch.code_point > 0xFFFF ? fmt::format("\\U{:08X}", ch.code_point) : fmt::format("\\u{:04X}", ch.code_point);
    } else {
      out.append(text.substr(at, ch.length));
    }
    at += ch.length;
  }
  return out + "\"";
}

std::string render_settings(const LayeredArgs& layered) {
  std::string out = "# pacer's settings: command line > environment (PACER_*) > --config file\n";
  // One key per option, in the order of its first setting; a repeated option's values
  // are one array (they all come from one layer: a higher layer replaces a lower's).
  std::vector<std::vector<const SettingOrigin*>> keys;
  for (const SettingOrigin& s : layered.origins) {
    auto it = std::find_if(keys.begin(), keys.end(), [&](const auto& k) { return k.front()->name == s.name; });
    if (it == keys.end()) keys.push_back({&s});
    else it->push_back(&s);
  }
  for (const auto& settings : keys) {
    const SettingOrigin& first = *settings.front();
    std::string value;
    if (first.is_flag) {
      value = "true";
    } else if (settings.size() == 1) {
      value = toml_value(shown_value(first.name, first.value));
    } else {
      for (const SettingOrigin* s : settings) value += (value.empty() ? "[" : ", ") + toml_string(shown_value(s->name, s->value));
      value += "]";
    }
    std::string origins;
    for (const SettingOrigin* s : settings) {
      if (origins.find(s->origin) == std::string::npos) origins += (origins.empty() ? "" : ", ") + s->origin;
    }
    out += fmt::format("{} = {}  # {}\n", first.name, value, stats::printable_name(origins));
  }
  return out;
}

}  // namespace pacer::cli
