// Shell completion scripts from the help texts (see completion.h).
#include "docgen/completion.h"

#include <algorithm>

#include <fmt/format.h>

namespace pacer::docgen {

namespace {

constexpr const char* kHeader =
    "completion for pacer, generated from its --help texts (src/cli/usage.cc)\n"
    "# by pacer-docgen: do not edit; options added to --help appear here by themselves.\n";

bool is_file_argument(std::string_view arg) {
  return arg == "FILE" || arg == "PATH" || arg == "PREFIX" || arg == "CERT" || arg == "KEY" ||
         arg.ends_with(".json") || arg.ends_with(".html") || arg.ends_with(".lua");
}

std::string join(const std::vector<std::string_view>& words) {
  std::string out;
  for (const std::string_view w : words) out += (out.empty() ? "" : " ") + std::string(w);
  return out;
}

std::string names_of(const std::vector<HelpOption>& options, ValueKind kind, std::size_t arguments = 0) {
  std::string out;
  for (const HelpOption& o : options) {
    const bool matches = value_kind(o) == kind && (arguments == 0 || o.arguments.size() == arguments);
    if (matches) out += (out.empty() ? "" : "|") + o.name;
  }
  return out;
}

// The `case $opt in` arms of one command: what the word after each option completes to.
std::string bash_value_arms(const CompletionCommand& command) {
  std::string out;
  for (const HelpOption& o : command.options) {
    if (value_kind(o) == ValueKind::kWords) {
      out += fmt::format("        {}) _pacer_words \"{}\" \"$cur\"; return ;;\n", o.name, join(fixed_values(o.name)));
    }
  }
  const std::string files = names_of(command.options, ValueKind::kFiles);
  const std::string dirs = names_of(command.options, ValueKind::kDirs);
  const std::string none = names_of(command.options, ValueKind::kNone);
  if (!files.empty()) out += "        " + files + ") _pacer_files \"$cur\"; return ;;\n";
  if (!dirs.empty()) out += "        " + dirs + ") _pacer_dirs \"$cur\"; return ;;\n";
  if (!none.empty()) out += "        " + none + ") return ;;\n";
  return out;
}

std::string bash_command_arm(const CompletionCommand& command) {
  std::string names;
  for (const HelpOption& o : command.options) names += (names.empty() ? "" : " ") + o.name;
  const std::string label = command.name.empty() ? "''" : command.name;
  std::string out = fmt::format("    {})\n      case $opt in\n{}      esac\n", label,
                                bash_value_arms(command));
  const std::string two_files = names_of(command.options, ValueKind::kFiles, 2);
  if (!two_files.empty()) out += "      case $prev2 in " + two_files + ") _pacer_files \"$cur\"; return ;; esac\n";
  out += fmt::format("      if [[ $cur == -* ]]; then _pacer_words \"{}\" \"$cur\"; return; fi\n", names);
  switch (command.positional) {
    case Positional::kFiles: out += "      _pacer_files \"$cur\" ;;\n"; break;
    case Positional::kRunTarget:
      out += "      if (( COMP_CWORD == 1 )); then _pacer_words \"$commands\" \"$cur\"; fi ;;\n";
      break;
    case Positional::kNone: out += fmt::format("      _pacer_words \"{}\" \"$cur\" ;;\n", names); break;
  }
  return out;
}

// A zsh _arguments description: brackets and colons would end the spec.
std::string zsh_description(std::string_view text) {
  std::string out;
  for (const char c : text) {
    if (c == '[') out += '(';
    else if (c == ']') out += ')';
    else if (c == ':') out += "\\:";
    else if (c == '\'') out += "'\\''";
    else out += c;
  }
  return out;
}

std::string zsh_spec(const HelpOption& o) {
  std::string spec = "'" + o.name + "[" + zsh_description(o.summary) + "]";
  switch (value_kind(o)) {
    case ValueKind::kFlag: break;
    case ValueKind::kWords: spec += ":" + o.arguments.front() + ":(" + join(fixed_values(o.name)) + ")"; break;
    case ValueKind::kFiles:
      for (const std::string& arg : o.arguments) spec += ":" + zsh_description(arg) + ":_files";
      break;
    case ValueKind::kDirs: spec += ":" + o.arguments.front() + ":_files -/"; break;
    case ValueKind::kNone: {
      std::string message = o.arguments.front();
      std::erase(message, '"');
      spec += ":" + zsh_description(message) + ": ";
      break;
    }
  }
  return spec + "'";
}

std::string zsh_variable(const CompletionCommand& command) {
  return "_pacer_" + (command.name.empty() ? std::string("run") : command.name) + "_args";
}

}  // namespace

const std::vector<ValueSet>& value_sets() {
  static const std::vector<ValueSet> kSets = {
      {"--io", {"auto", "uring", "epoll"}},
      {"--arrival", {"uniform", "poisson"}},
      {"--format", {"text", "json"}},
      {"--targets-order", {"round-robin", "random", "weighted"}},
      {"-m", {"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"}},
      {"--method", {"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"}},
      {"--shard", {"auto", "auto/"}},
  };
  return kSets;
}

std::vector<std::string_view> fixed_values(std::string_view option) {
  for (const ValueSet& set : value_sets()) {
    if (set.option == option) return set.values;
  }
  return {};
}

ValueKind value_kind(const HelpOption& option) {
  // "--web [ADDR]": the value is optional, so the next word may be anything.
  if (option.arguments.empty() || option.arguments.front().starts_with("[")) return ValueKind::kFlag;
  if (!fixed_values(option.name).empty()) return ValueKind::kWords;
  if (option.arguments.front() == "DIR") return ValueKind::kDirs;
  if (is_file_argument(option.arguments.front())) return ValueKind::kFiles;
  return ValueKind::kNone;
}

std::string bash_completion(const std::vector<CompletionCommand>& commands) {
  std::string names;
  for (const CompletionCommand& c : commands) {
    if (!c.name.empty()) names += (names.empty() ? "" : " ") + c.name;
  }
  std::string out = std::string("# bash ") + kHeader;
  out += R"sh(
_pacer_words() { mapfile -t COMPREPLY < <(compgen -W "$1" -- "$2"); }
_pacer_files() { compopt -o filenames 2>/dev/null; mapfile -t COMPREPLY < <(compgen -f -- "$1"); }
_pacer_dirs() { compopt -o filenames 2>/dev/null; mapfile -t COMPREPLY < <(compgen -d -- "$1"); }

_pacer() {
  local cur=${COMP_WORDS[COMP_CWORD]} prev='' prev2='' cmd='' i
)sh";
  out += "  local commands=\"" + names + "\"\n";
  out += R"sh(  COMPREPLY=()
  (( COMP_CWORD >= 1 )) && prev=${COMP_WORDS[COMP_CWORD-1]}
  (( COMP_CWORD >= 2 )) && prev2=${COMP_WORDS[COMP_CWORD-2]}
  # --opt=value: bash splits it at '=' (COMP_WORDBREAKS).
  local opt=$prev
  if [[ $cur == = ]]; then
    cur=''
  elif [[ $prev == = ]]; then
    opt=$prev2
    prev2=''
    (( COMP_CWORD >= 3 )) && prev2=${COMP_WORDS[COMP_CWORD-3]}
  fi
  if (( COMP_CWORD > 1 )) && [[ " $commands " == *" ${COMP_WORDS[1]} "* ]]; then cmd=${COMP_WORDS[1]}; fi
  # After "--", the words are the script's arguments.
  for (( i = 1; i < COMP_CWORD; i++ )); do
    if [[ ${COMP_WORDS[i]} == -- ]]; then _pacer_files "$cur"; return; fi
  done
  case $cmd in
)sh";
  for (const CompletionCommand& c : commands) out += bash_command_arm(c);
  out += "  esac\n}\n\ncomplete -F _pacer pacer\n";
  return out;
}

std::string zsh_completion(const std::vector<CompletionCommand>& commands) {
  std::string out = std::string("#compdef pacer\n# zsh ") + kHeader + "\n";
  std::string names;
  for (const CompletionCommand& c : commands) {
    out += zsh_variable(c) + "=(\n";
    for (const HelpOption& o : c.options) out += "  " + zsh_spec(o) + "\n";
    out += ")\n";
    if (!c.name.empty()) names += (names.empty() ? "" : " ") + c.name;
  }
  out += fmt::format(R"sh(
_pacer() {{
  local -a commands=({0})
  if (( CURRENT > 2 )) && (( ${{commands[(I)${{words[2]}}]}} )); then
    local cmd=${{words[2]}}
    shift words
    (( CURRENT-- ))
    case $cmd in
)sh",
                     names);
  for (const CompletionCommand& c : commands) {
    if (c.name.empty()) continue;
    const std::string rest = c.positional == Positional::kFiles ? " '*:file:_files'" : "";
    const CompletionCommand& options = c.positional == Positional::kRunTarget ? commands.front() : c;
    out += fmt::format("      {}) _arguments -S : \"${{{}[@]}}\"{} ;;\n", c.name, zsh_variable(options), rest);
  }
  out += fmt::format(R"sh(    esac
  else
    _arguments -S : "${{{0}[@]}}" '1: :_pacer_first' '*:script argument:_files'
  fi
}}

_pacer_first() {{
  _alternative "commands:command:({1})" 'urls:URL:(http\://127.0.0.1\:8080/ https\://)'
}}

_pacer "$@"
)sh",
                     zsh_variable(commands.front()), names);
  return out;
}

}  // namespace pacer::docgen
