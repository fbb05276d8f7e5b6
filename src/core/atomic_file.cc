#include "core/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "core/unique_fd.h"

namespace pacer {

namespace {

std::string directory_of(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

}  // namespace

Status write_file_atomically(const std::string& path, std::string_view content) {
  const std::string temp = path + ".tmp." + std::to_string(::getpid());
  UniqueFd fd(::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  if (!fd.valid()) return runtime_error("cannot write '" + path + "': " + std::strerror(errno));
  std::size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = ::write(fd.get(), content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = errno;
      ::unlink(temp.c_str());
      return runtime_error("cannot write '" + path + "': " + std::strerror(err));
    }
    done += static_cast<std::size_t>(n);
  }
  if (::fsync(fd.get()) != 0 || ::close(fd.release()) != 0 || std::rename(temp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(temp.c_str());
    return runtime_error("cannot write '" + path + "': " + std::strerror(err));
  }
  return Ok{};
}

Status check_writable_path(const std::string& path, std::string_view flag) {
  if (path.empty()) return bad_argument(std::string(flag) + ": the file name is empty");
  const std::string dir = directory_of(path);
  if (::access(dir.c_str(), W_OK) != 0) {
    return bad_argument(std::string(flag) + ": cannot create '" + path + "' (" + dir + ": " + std::strerror(errno) +
                        ")");
  }
  return Ok{};
}

}  // namespace pacer
