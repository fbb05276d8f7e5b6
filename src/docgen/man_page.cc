// Man pages from help texts (see man_page.h).
#include "docgen/man_page.h"

#include <algorithm>
#include <cctype>

namespace pacer::docgen {

namespace {

std::string upper(std::string_view s) {
  std::string out(s);
  const auto to_upper = [](unsigned char c) { return static_cast<char>(std::toupper(c)); };
  std::transform(out.begin(), out.end(), out.begin(), to_upper);
  return out;
}

bool is_option_section(const HelpSection& section) {
  return !section.blocks.empty() && !section.blocks.front().term.empty() && section.blocks.front().term[0] == '-';
}

// "-c, --connections N": options bold, their arguments italic.
std::string roff_term(std::string_view term) {
  std::string out;
  std::size_t i = 0;
  while (i < term.size()) {
    std::size_t j = term.find_first_of(" ,", i);
    if (j == std::string_view::npos) j = term.size();
    if (j > i) {
      const std::string_view word = term.substr(i, j - i);
      const bool is_option = word[0] == '-' || word[0] == '/' || std::isdigit(static_cast<unsigned char>(word[0])) ||
                             std::islower(static_cast<unsigned char>(word[0]));
      out += (is_option ? "\\fB" : "\\fI") + roff_escape(word) + "\\fR";
    }
    if (j < term.size()) out += term[j];
    i = j + 1;
  }
  return out;
}

void append_blocks(std::string& out, const std::vector<HelpBlock>& blocks) {
  for (const HelpBlock& block : blocks) {
    if (block.term.empty()) {
      out += ".PP\n" + roff_escape(block.text) + "\n";
      continue;
    }
    out += ".TP\n" + roff_term(block.term) + "\n";
    std::string text = block.text;
    if (!block.default_value.empty()) {
      if (!text.empty() && text.back() != '.') text += '.';
      text += (text.empty() ? "" : " ") + std::string("Default: ") + block.default_value + ".";
    }
    out += roff_escape(text.empty() ? std::string_view(" ") : std::string_view(text)) + "\n";
  }
}

std::string section_title(std::string_view title) {
  if (title == "Exit codes") return "EXIT STATUS";
  return upper(title);
}

}  // namespace

std::string roff_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 8);
  for (const char c : text) {
    if (c == '\\') {
      out += "\\e";
    } else if (c == '-') {
      out += "\\-";
    } else {
      out += c;
    }
  }
  if (!out.empty() && (out[0] == '.' || out[0] == '\'')) out.insert(0, "\\&");
  return out;
}

std::string man_page(const HelpPage& help, const ManPage& page) {
  std::string out = ".\\\" Generated from `" + page.name + " --help` (src/cli/usage.cc) by pacer-docgen;";
  out += " do not edit.\n";
  out += ".TH " + upper(page.name) + " 1 \"\" \"pacer " + page.version + "\" \"User Commands\"\n";
  out += ".SH NAME\n" + roff_escape(page.name) + " \\- " + roff_escape(page.summary) + "\n";
  out += ".SH SYNOPSIS\n";
  for (std::size_t i = 0; i < help.synopsis.size(); ++i) {
    if (i > 0) out += ".br\n";
    out += roff_escape(help.synopsis[i]) + "\n";
  }
  out += ".SH DESCRIPTION\n" + page.description;
  bool in_options = false;
  for (const HelpSection& section : help.sections) {
    if (section.blocks.empty()) continue;
    if (section.title.empty()) {
      append_blocks(out, section.blocks);  // under DESCRIPTION, which the page opened
      in_options = false;
    } else if (is_option_section(section)) {
      if (!in_options) out += ".SH OPTIONS\n";
      if (section.title != "Options") out += ".SS \"" + roff_escape(section.title) + "\"\n";
      append_blocks(out, section.blocks);
      in_options = true;
    } else {
      out += ".SH \"" + roff_escape(section_title(section.title)) + "\"\n";
      append_blocks(out, section.blocks);
      in_options = false;
    }
  }
  for (const auto& [title, body] : page.extra_sections) out += ".SH " + title + "\n" + body;
  if (!page.see_also.empty()) {
    out += ".SH \"SEE ALSO\"\n";
    for (std::size_t i = 0; i < page.see_also.size(); ++i) {
      const std::string& ref = page.see_also[i];
      const std::size_t paren = ref.find('(');
      const bool last = i + 1 == page.see_also.size();
      out += ".BR " + roff_escape(ref.substr(0, paren)) + " " + ref.substr(paren) + (last ? "\n" : " ,\n");
    }
  }
  return out;
}

}  // namespace pacer::docgen
