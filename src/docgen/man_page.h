// A man page (roff, man(7) macros) from a help text (help_text.h): the synopsis,
// the text before the first heading as DESCRIPTION, the option sections under
// OPTIONS (one .SS each), every other section as its own .SH, then the sections
// the help has no room for (ENVIRONMENT, FILES, SEE ALSO) from ManPage. Pure.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "docgen/help_text.h"

namespace pacer::docgen {

struct ManPage {
  std::string name;     // "pacer", "pacer-serve"
  std::string summary;  // NAME's line: "an HTTP load generator"
  std::string version;  // "0.1.0"
  std::string description;  // roff opening DESCRIPTION, before the help's own text there
  std::vector<std::pair<std::string, std::string>> extra_sections;  // title, roff body
  std::vector<std::string> see_also;                               // "pacer-serve(1)"
};

std::string man_page(const HelpPage& help, const ManPage& page);

// Text made safe for roff: backslashes, hyphens as \- (options copy as typed),
// and a leading '.' or '\'' that roff would read as a request.
std::string roff_escape(std::string_view text);

}  // namespace pacer::docgen
