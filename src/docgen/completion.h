// Bash and zsh completion scripts from the help texts (help_text.h): every
// command the synopsis names, every option of each command's --help, a value
// list where an option takes one of a fixed set (kValueSets), file names where
// its argument is a file (FILE, PATH, PREFIX, CERT, KEY; DIR: directories), and
// nothing for numbers and durations. Pure.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "docgen/help_text.h"

namespace pacer::docgen {

// What a positional argument of a command completes to.
enum class Positional { kNone, kFiles, kRunTarget };  // kRunTarget: a command name, then a URL

struct CompletionCommand {
  std::string name;  // "" for the run (pacer [options] URL)
  std::vector<HelpOption> options;
  Positional positional = Positional::kNone;
};

struct ValueSet {
  std::string_view option;
  std::vector<std::string_view> values;
};

// The options whose value is one of a fixed set, wherever --help lists them.
const std::vector<ValueSet>& value_sets();

// What an option's value completes to: its fixed set, "<files>", "<dirs>", or "" (none).
enum class ValueKind { kNone, kFlag, kWords, kFiles, kDirs };
ValueKind value_kind(const HelpOption& option);
std::vector<std::string_view> fixed_values(std::string_view option);

std::string bash_completion(const std::vector<CompletionCommand>& commands);
std::string zsh_completion(const std::vector<CompletionCommand>& commands);

}  // namespace pacer::docgen
