// Output files (-o, --hdr, `pacer merge -o`, ...), written so that nothing but
// the file meant is ever changed. Main thread.
//
// The path is first followed through its symbolic links to the file they name
// (by the kernel for a file that exists, /dev/stdout to a pipe included).
// A regular file (or none yet) is written whole to a temporary file beside it,
// then renamed over it, so a reader (or an interrupted run) never sees half a
// file; an existing file keeps its permissions. Anything else (a character
// device such as /dev/null, a FIFO) is written in place, as a shell's `>` does:
// a device node or a link is never replaced by a regular file. The file pacer's
// own stdout or stderr goes to (-o /dev/stdout > file) is appended to in place.
#pragma once

#include <string>
#include <string_view>

#include "core/expected.h"
#include "core/unique_fd.h"

namespace pacer {

// How long an output that is a FIFO waits for a reader before it is refused.
inline constexpr int kFifoReaderWaitMs = 2000;

// Opens an existing device or FIFO to write in place, after what is there (a
// shell's `>>`): the one place pacer opens such an output (-o, --html, --hdr,
// --timeseries, --log-requests, ...). Never blocks: a FIFO nobody reads is
// waited for at most kFifoReaderWaitMs, then refused ("nobody reads the FIFO");
// the descriptor is blocking once open. Errors (kRuntime) name the path.
Result<UniqueFd> open_in_place(const std::string& path);

// An output written as the run goes (--timeseries): a device or FIFO opened by
// open_in_place, anything else created or truncated. Errors (kRuntime) name the path.
Result<UniqueFd> open_streamed_output(const std::string& path);

// Errors (kRuntime) name the path as given and the system's reason.
Status write_file_atomically(const std::string& path, std::string_view content);
// The same, for the file an option names: the error starts with the option
// ("--html: cannot write 'r.html': No space left on device").
Status write_output_file(std::string_view flag, const std::string& path, std::string_view content);

// The file a write to path reaches: an existing regular file's real path; a
// device or FIFO, path itself (written in place, so even /proc's links such as
// /dev/stdout work); no file yet, path with its own symbolic links followed and
// its directory made canonical (x, ./x and d/../x give one name; a
// dangling link gives the file it would create). Error (kRuntime): a link loop.
Result<std::string> resolve_output_path(const std::string& path);

// Whether path can be written as write_file_atomically would: not a directory
// or a socket; a regular file or a new one needs a writable directory, a device
// or FIFO write permission. The error (kBadArgument) names flag, the path and
// the reason. Checked before a run so a typo fails in a second, not after the load.
Status check_writable_path(const std::string& path, std::string_view flag);

}  // namespace pacer
