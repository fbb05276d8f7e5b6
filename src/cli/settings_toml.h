// --print-config's text (issue 27, issue 43 item 5, issue 44 item 9): the merged
// settings as a TOML file that --config reads back to the same run. An option given
// more than once is one array (`header = ["A: 1", "B: 2"]`), a number is a number,
// a flag is `true`, and every control character (C0, DEL, C1, the bidirectional
// controls) is a \uXXXX escape, so a file's or a variable's ESC never reaches the
// terminal. Each key's comment says where it came from. Pure; main thread.
#pragma once

#include <string>
#include <string_view>

#include "cli/config_layers.h"

namespace pacer::cli {

// The merged settings, one key per line: `name = value  # origin`; secrets as
// shown_value hides them (cli/secrets.h).
std::string render_settings(const LayeredArgs& layered);

// `text` as a TOML basic string, quotes included: `"`, `\` and control characters
// escaped; a byte that is not UTF-8 (which TOML cannot hold) becomes U+FFFD.
std::string toml_string(std::string_view text);

}  // namespace pacer::cli
