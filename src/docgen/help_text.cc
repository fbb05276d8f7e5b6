// Reads usage.cc's help texts back as a structure (see help_text.h).
#include "docgen/help_text.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <regex>

namespace pacer::docgen {

namespace {

std::size_t indent_of(std::string_view line) {
  const std::size_t first = line.find_first_not_of(' ');
  return first == std::string_view::npos ? line.size() : first;
}

std::string trim(std::string_view s) {
  const std::size_t first = s.find_first_not_of(' ');
  if (first == std::string_view::npos) return {};
  const std::size_t last = s.find_last_not_of(' ');
  return std::string(s.substr(first, last - first + 1));
}

std::vector<std::string> split_lines(std::string_view text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    lines.emplace_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

std::vector<std::string> words_of(std::string_view s) {
  std::vector<std::string> words;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && s[i] == ' ') ++i;
    std::size_t j = i;
    while (j < s.size() && s[j] != ' ') ++j;
    // A quoted argument is one word: -H "K: V".
    if (j > i && s[i] == '"' && (j - i < 2 || s[j - 1] != '"')) {
      const std::size_t close = s.find('"', j);
      if (close != std::string_view::npos) j = close + 1;
    }
    if (j > i) words.emplace_back(s.substr(i, j - i));
    i = j;
  }
  return words;
}

// The column entries' text starts at: the most common indent of the deeper lines.
std::size_t text_column(const std::vector<std::string>& lines) {
  std::map<std::size_t, int> counts;
  for (const std::string& line : lines) {
    const std::size_t indent = indent_of(line);
    if (indent >= 8 && indent < line.size() && line.compare(indent, 5, "pacer") != 0) ++counts[indent];
  }
  std::size_t best = 23;
  int best_count = 0;
  for (const auto& [indent, count] : counts) {
    if (count > best_count) best = indent, best_count = count;
  }
  return best;
}

// "text    [default]" at the end of an entry's line: the text, the default.
void add_entry_text(HelpBlock& block, std::string_view segment, bool deep) {
  static const std::regex kTrailingDefault(R"(^(.*?)\s{2,}\[([^\]]*)\]\s*$)");
  std::string text = trim(segment);
  std::smatch match;
  if (std::regex_match(text, match, kTrailingDefault)) {
    block.default_value = match[2];
    text = trim(match[1].str());
  } else if (deep && text.size() > 2 && text.front() == '[' && text.back() == ']' &&
             text.find(']') == text.size() - 1) {
    block.default_value = text.substr(1, text.size() - 2);  // a default on a line of its own
    text.clear();
  }
  if (text.empty()) return;
  if (!block.text.empty()) block.text += ' ';
  block.text += text;
}

// A heading: column 0, ending in ':' once a "[default]" column marker is dropped.
bool heading(const std::string& line, std::string& title) {
  static const std::regex kHeading(R"(^(\S.*):(\s{2,}\[default\])?\s*$)");
  std::smatch match;
  if (!std::regex_match(line, match, kHeading)) return false;
  title = match[1];
  return true;
}

// An entry's first line split into its term and its text; false for a paragraph line.
bool split_entry(const std::string& line, std::size_t indent, std::size_t column, std::string& term,
                 std::string& rest) {
  if (indent == 0 || indent >= column) return false;
  const std::size_t gap = line.find("  ", indent);
  if (gap != std::string::npos && gap < column) {
    term = trim(std::string_view(line).substr(0, gap));
    rest = line.substr(gap);
    return true;
  }
  if (line.size() > column && line[column - 1] == ' ' && line[column] != ' ' &&
      !trim(std::string_view(line).substr(0, column)).empty()) {
    term = trim(std::string_view(line).substr(0, column));
    rest = line.substr(column);
    return true;
  }
  if (line[indent] == '-') {
    term = trim(line);
    rest.clear();
    return true;
  }
  return false;
}

}  // namespace

HelpPage parse_help(std::string_view text) {
  HelpPage page;
  const std::vector<std::string> lines = split_lines(text);
  const std::size_t column = text_column(lines);
  page.sections.emplace_back();
  std::size_t i = 0;
  if (!lines.empty() && lines[0].rfind("Usage:", 0) == 0) {
    page.synopsis.push_back(trim(std::string_view(lines[0]).substr(6)));
    for (i = 1; i < lines.size() && indent_of(lines[i]) > 0 && trim(lines[i]).rfind("pacer", 0) == 0; ++i) {
      page.synopsis.push_back(trim(lines[i]));
    }
  }
  enum class Open { kNone, kEntry, kParagraph } open = Open::kNone;
  std::size_t entry_indent = 0;
  for (; i < lines.size(); ++i) {
    const std::string& line = lines[i];
    const std::size_t indent = indent_of(line);
    std::vector<HelpBlock>& blocks = page.sections.back().blocks;
    std::string title, term, rest;
    if (indent == line.size()) {
      open = Open::kNone;
    } else if (indent == 0 && heading(line, title)) {
      page.sections.push_back(HelpSection{title, {}});
      open = Open::kNone;
    } else if (open == Open::kEntry && indent + 1 >= column && indent > entry_indent) {
      add_entry_text(blocks.back(), line, indent > column + 8);
    } else if (split_entry(line, indent, column, term, rest)) {
      blocks.push_back(HelpBlock{term, {}, {}});
      add_entry_text(blocks.back(), rest, false);
      open = Open::kEntry;
      entry_indent = indent;
    } else if (open == Open::kParagraph) {
      blocks.back().text += ' ' + trim(line);
    } else {
      blocks.push_back(HelpBlock{{}, trim(line), {}});
      open = Open::kParagraph;
    }
  }
  return page;
}

std::vector<HelpOption> options_of_term(std::string_view term) {
  std::vector<HelpOption> options;
  std::size_t start = 0;
  while (start <= term.size()) {
    std::size_t end = term.find(", ", start);
    if (end == std::string_view::npos) end = term.size();
    const std::vector<std::string> words = words_of(term.substr(start, end - start));
    if (!words.empty() && words[0].size() > 1 && words[0][0] == '-') {
      options.push_back(HelpOption{words[0], {words.begin() + 1, words.end()}, {}});
    }
    start = end + 2;
  }
  // "-c, --connections N": the short option takes the long one's argument.
  for (std::size_t k = 0; k + 1 < options.size(); ++k) {
    const bool is_short = options[k].name.size() == 2;
    if (is_short && options[k].arguments.empty() && options[k + 1].name.rfind("--", 0) == 0) {
      options[k].arguments = options[k + 1].arguments;
    }
  }
  return options;
}

std::vector<HelpOption> options_of(const HelpPage& page) {
  std::vector<HelpOption> all;
  for (const HelpSection& section : page.sections) {
    for (const HelpBlock& block : section.blocks) {
      if (block.term.empty() || block.term[0] != '-') continue;
      // Up to the first ';', '(' or sentence end ("127.0.0.1" is not one).
      const std::string& text = block.text;
      const std::size_t last_dot = !text.empty() && text.back() == '.' ? text.size() - 1 : std::string::npos;
      const std::size_t cut = std::min({text.find(';'), text.find('('), text.find(". "), last_dot});
      const std::string summary = trim(text.substr(0, cut));
      for (HelpOption& option : options_of_term(block.term)) {
        const auto same = [&](const HelpOption& o) { return o.name == option.name; };
        const bool seen = std::any_of(all.begin(), all.end(), same);
        if (seen) continue;
        option.summary = summary;
        all.push_back(std::move(option));
      }
    }
  }
  return all;
}

std::vector<std::string> commands_of(const HelpPage& page) {
  std::vector<std::string> commands;
  for (const std::string& line : page.synopsis) {
    const std::vector<std::string> words = words_of(line);
    if (words.size() < 2 || words[0] != "pacer") continue;
    const std::string& word = words[1];
    const auto lower = [](char c) { return std::islower(static_cast<unsigned char>(c)) != 0; };
    const bool is_command = std::all_of(word.begin(), word.end(), lower);
    if (is_command && std::find(commands.begin(), commands.end(), word) == commands.end()) commands.push_back(word);
  }
  return commands;
}

}  // namespace pacer::docgen
