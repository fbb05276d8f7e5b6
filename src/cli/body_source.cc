// -b/--body sources; see the header. Files are read with open/read so that errors
// such as EISDIR are reported with the same strerror text as any other.
#include "cli/body_source.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iterator>

#include <fmt/format.h>

#include "core/unique_fd.h"

namespace pacer::cli {
namespace {

Result<std::string> read_file(const std::string& path, std::string_view flag) {
  const auto failure = [&] {
    return bad_input(fmt::format("{}: cannot read body file '{}': {}", flag, path,
                                 std::strerror(errno)));
  };
  const UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) return failure();
  std::string bytes;
  char chunk[64 * 1024];
  for (;;) {
    const ssize_t n = ::read(fd.get(), chunk, sizeof chunk);
    if (n == 0) return bytes;
    if (n < 0) {
      if (errno == EINTR) continue;
      return failure();
    }
    bytes.append(chunk, static_cast<std::size_t>(n));
  }
}

Result<std::string> read_stream(std::istream& in, std::string_view flag) {
  std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  if (in.bad()) return bad_input(fmt::format("{}: cannot read the body from standard input", flag));
  return bytes;
}

}  // namespace

Result<std::string> read_body_argument(std::string_view value, std::string_view flag,
                                       std::istream& stdin_stream) {
  if (value.empty() || value[0] != '@') return std::string(value);
  const std::string_view source = value.substr(1);
  if (!source.empty() && source[0] == '@') return std::string(source);  // "@@x" -> "@x"
  if (source == "-") return read_stream(stdin_stream, flag);
  if (source.empty()) {
    return bad_argument(fmt::format("{}: '@' needs a file name (@FILE, @- for stdin, "
                                    "@@ for a literal @)", flag));
  }
  return read_file(std::string(source), flag);
}

}  // namespace pacer::cli
