// Writes a whole file atomically: a temporary file beside it, then rename(2), so
// a reader (or an interrupted run) never sees half a file. Main thread.
#pragma once

#include <string>
#include <string_view>

#include "core/expected.h"

namespace pacer {

// Errors (kRuntime) name the path and the system's reason.
Status write_file_atomically(const std::string& path, std::string_view content);

// Whether a file could be created at path (its directory exists and is
// writable); the error (kBadArgument) names the path. Checked before a run so a
// typo fails in a second, not after the load.
Status check_writable_path(const std::string& path, std::string_view flag);

}  // namespace pacer
