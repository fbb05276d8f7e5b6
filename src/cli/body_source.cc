// -b/--body sources; see the header. Files are read with open/read so that errors
// such as EISDIR are reported with the same strerror text as any other. At most
// max_bytes + 1 bytes are ever read (core/read_fd.h): one more than the cap
// proves it was passed.
#include "cli/body_source.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "core/byte_size.h"
#include "core/read_fd.h"
#include "core/unique_fd.h"

namespace pacer::cli {
namespace {

Error past_cap(std::string_view flag, std::string_view what, std::uint64_t max_bytes) {
  return bad_input(fmt::format("{}: {} goes on past the {} cap on a body (raise it with --max-request-body)", flag,
                               what, format_byte_size(max_bytes)));
}

Result<std::string> read_file(const std::string& path, std::string_view flag, std::uint64_t max_bytes) {
  const auto failure = [&](int err) {
    return bad_input(fmt::format("{}: cannot read body file '{}': {}", flag, path, std::strerror(err)));
  };
  const UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) return failure(errno);
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return failure(errno);
  // A regular file's size is known: refused before a byte is read.
  if (S_ISREG(st.st_mode) && static_cast<std::uint64_t>(st.st_size) > max_bytes) {
    return bad_input(fmt::format("{}: body file '{}' is {} bytes, more than the {} cap on a body (raise it with "
                                 "--max-request-body)",
                                 flag, path, st.st_size, format_byte_size(max_bytes)));
  }
  // A device or pipe that does not end (/dev/zero), or a file still growing.
  ReadToEnd read = read_to_end(fd.get(), max_bytes);
  if (read.err != 0) return failure(read.err);
  if (read.past_cap) return past_cap(flag, fmt::format("body file '{}'", path), max_bytes);
  return std::move(read.bytes);
}

Result<std::string> read_stdin(int stdin_fd, std::string_view flag, std::uint64_t max_bytes) {
  ReadToEnd read = read_to_end(stdin_fd, max_bytes);
  if (read.past_cap) return past_cap(flag, "standard input (@-)", max_bytes);
  if (read.err != 0) {
    return bad_input(fmt::format("{}: cannot read the body from standard input: {}", flag, std::strerror(read.err)));
  }
  return std::move(read.bytes);
}

}  // namespace

Result<std::string> read_body_argument(std::string_view value, std::string_view flag,
                                       int stdin_fd, std::uint64_t max_bytes) {
  if (value.empty() || value[0] != '@') return std::string(value);
  const std::string_view source = value.substr(1);
  if (!source.empty() && source[0] == '@') return std::string(source);  // "@@x" -> "@x"
  if (source == "-") return read_stdin(stdin_fd, flag, max_bytes);
  if (source.empty()) {
    return bad_argument(fmt::format("{}: '@' needs a file name (@FILE, @- for stdin, "
                                    "@@ for a literal @)", flag));
  }
  return read_file(std::string(source), flag, max_bytes);
}

}  // namespace pacer::cli
