// The help texts (cli/usage.cc) read back as a structure, so that the man pages
// and the shell completions are generated from the very text --help prints and
// can never disagree with it: an option someone adds to usage.cc appears in both.
//
// The shape read is the one usage.cc keeps: "Usage:" and its indented "pacer ..."
// lines; headings at column 0 ending in ':' (a trailing "[default]" marker is
// dropped); entries indented under a heading, "  -c, --connections N  text", whose
// text runs on in lines indented to the text column; a default in brackets after
// two or more spaces at the end of an entry's line ("[10]"); everything else is a
// paragraph (blank lines separate them). Pure; any thread.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace pacer::docgen {

// One entry ("-c, --connections N", its text, "10") or, with an empty term, a paragraph.
struct HelpBlock {
  std::string term;
  std::string text;           // the lines joined by single spaces
  std::string default_value;  // without the brackets; "" when none is given
};

struct HelpSection {
  std::string title;  // "" for the text before the first heading
  std::vector<HelpBlock> blocks;
};

struct HelpPage {
  std::vector<std::string> synopsis;  // "pacer [options] URL [-- script args]", ...
  std::vector<HelpSection> sections;
};

HelpPage parse_help(std::string_view text);

// One option as an entry's term defines it: "--connections" with its argument
// names ("N"); "-c" shares the argument of the long option it stands beside.
struct HelpOption {
  std::string name;                    // "-c", "--connections"
  std::vector<std::string> arguments;  // "N"; "CERT", "KEY"; "[ADDR]" (optional)
  std::string summary;                 // the entry's text up to its first ';', '.' or '('
};

// The options of an entry's term ("-c, --connections N" -> -c N, --connections N;
// "--force, --allow-missing, --start-tolerance T" -> only the last takes T).
std::vector<HelpOption> options_of_term(std::string_view term);

// Every option of the page's entries, each name once, in the order of the text;
// an option given twice ("--shard i/N", "--shard auto") keeps its first arguments.
std::vector<HelpOption> options_of(const HelpPage& page);

// The commands the synopsis names: "pacer serve [options]" -> "serve".
std::vector<std::string> commands_of(const HelpPage& page);

}  // namespace pacer::docgen
