// Output files; see the header. The path a user names is followed through its
// symbolic links first, so neither a link nor a device node is ever replaced.
#include "core/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "core/unique_fd.h"

namespace pacer {

namespace {

constexpr int kMaxLinkHops = 40;  // as the kernel's own limit (ELOOP)

std::string directory_of(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

Error write_error(const std::string& path, int err) {
  return runtime_error("cannot write '" + path + "': " + std::strerror(err));
}

// 0, or the errno of the write that failed.
int write_all(int fd, std::string_view content) {
  std::size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return n < 0 ? errno : EIO;
    done += static_cast<std::size_t>(n);
  }
  return 0;
}

// Whether st is the file pacer's stdout or stderr already writes (-o /dev/stdout
// with stdout redirected to a file): replacing it would orphan what was printed.
bool is_standard_output(const struct stat& st) {
  for (const int fd : {STDOUT_FILENO, STDERR_FILENO}) {
    struct stat open_st {};
    if (::fstat(fd, &open_st) == 0 && open_st.st_dev == st.st_dev && open_st.st_ino == st.st_ino) return true;
  }
  return false;
}

// Whether an existing regular file may not be written: no write permission for
// us, or none for anyone (0444: root may write it, but its owner said not to).
// Such a file is never replaced, as a shell's `>` would not replace it either.
bool is_read_only(const std::string& path, const struct stat& st) {
  return (st.st_mode & (S_IWUSR | S_IWGRP | S_IWOTH)) == 0 || ::access(path.c_str(), W_OK) != 0;
}

// The path with its directory's links, '.' and '..' resolved (the directory
// exists), so that x, ./x, a/../x and a link to the directory all give one name.
std::string canonical_new_path(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  const std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  char dir[PATH_MAX];
  if (base.empty() || base == "." || base == ".." || ::realpath(directory_of(path).c_str(), dir) == nullptr) {
    return path;  // check_writable_path names what is wrong with it
  }
  const std::string d(dir);
  return (d == "/" ? d : d + "/") + base;
}

// A device, a FIFO, or the file stdout goes to: written where it is, after
// what is there, as a shell's `>>` would (no rename, no fsync, which devices
// refuse).
Status write_in_place(const std::string& path, std::string_view content) {
  auto opened = open_in_place(path);
  if (!opened) return opened.error();
  UniqueFd fd = std::move(*opened);
  if (const int err = write_all(fd.get(), content); err != 0) return write_error(path, err);
  if (::close(fd.release()) != 0) return write_error(path, errno);
  return Ok{};
}

// A regular file (or none yet): a temporary file beside it, then rename(2). An
// existing file keeps its permissions.
Status write_by_rename(const std::string& path, const std::string& target, std::string_view content,
                       const struct stat* existing) {
  const std::string temp = target + ".tmp." + std::to_string(::getpid());
  UniqueFd fd(::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  if (!fd.valid()) return write_error(path, errno);
  int err = 0;
  if (existing != nullptr && ::fchmod(fd.get(), existing->st_mode & 07777) != 0) err = errno;
  if (err == 0) err = write_all(fd.get(), content);
  if (err == 0 && (::fsync(fd.get()) != 0 || ::close(fd.release()) != 0 ||
                   std::rename(temp.c_str(), target.c_str()) != 0)) {
    err = errno;
  }
  if (err != 0) {
    ::unlink(temp.c_str());
    return write_error(path, err);
  }
  return Ok{};
}

}  // namespace

Result<UniqueFd> open_in_place(const std::string& path) {
  // O_NONBLOCK: a FIFO without a reader fails at once (ENXIO) instead of blocking
  // in open(2) until one comes, where no signal but a second one could end pacer.
  for (int waited_ms = 0;; waited_ms += 10) {
    UniqueFd fd(::open(path.c_str(), O_WRONLY | O_APPEND | O_NONBLOCK | O_CLOEXEC));
    if (fd.valid()) {
      const int flags = ::fcntl(fd.get(), F_GETFL);
      if (flags < 0 || ::fcntl(fd.get(), F_SETFL, flags & ~O_NONBLOCK) != 0) return write_error(path, errno);
      return fd;
    }
    const int err = errno;
    struct stat st {};
    if (err == EINTR) continue;
    if (err != ENXIO || ::stat(path.c_str(), &st) != 0 || !S_ISFIFO(st.st_mode)) return write_error(path, err);
    if (waited_ms >= kFifoReaderWaitMs) {
      return runtime_error("cannot write '" + path + "': nobody reads the FIFO (waited " +
                           std::to_string(kFifoReaderWaitMs / 1000) + " s for a reader to open it)");
    }
    ::usleep(10 * 1000);  // a signal cuts it short: the loop then ends as bounded
  }
}

Result<UniqueFd> open_streamed_output(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) return open_in_place(path);
  UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  if (!fd.valid()) return write_error(path, errno);
  return fd;
}

Result<std::string> resolve_output_path(const std::string& path) {
  // An existing file: the kernel's own answer, which also knows /proc's links
  // (/dev/stdout -> /proc/self/fd/1 -> a pipe, whose "target" is no path).
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    if (!S_ISREG(st.st_mode)) return path;  // written in place, by opening path itself
    char resolved[PATH_MAX];
    if (::realpath(path.c_str(), resolved) == nullptr) return write_error(path, errno);
    return std::string(resolved);
  }
  // None yet: path's own links are followed; a dangling one names the file to create.
  std::string current = path;
  for (int hops = 0; hops < kMaxLinkHops; ++hops) {
    if (::lstat(current.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return canonical_new_path(current);
    char target[PATH_MAX];
    const ssize_t n = ::readlink(current.c_str(), target, sizeof target - 1);
    if (n < 0) return write_error(path, errno);
    const std::string next(target, static_cast<std::size_t>(n));
    current = next.front() == '/' ? next : directory_of(current) + "/" + next;
  }
  return write_error(path, ELOOP);
}

Status write_file_atomically(const std::string& path, std::string_view content) {
  struct stat st {};
  const bool exists = ::stat(path.c_str(), &st) == 0;
  if (!exists && errno != ENOENT) return write_error(path, errno);
  if (exists && S_ISDIR(st.st_mode)) return write_error(path, EISDIR);
  if (exists && (!S_ISREG(st.st_mode) || is_standard_output(st))) return write_in_place(path, content);
  if (exists && is_read_only(path, st)) return write_error(path, EACCES);
  auto target = resolve_output_path(path);
  if (!target) return target.error();
  return write_by_rename(path, *target, content, exists ? &st : nullptr);
}

Status write_output_file(std::string_view flag, const std::string& path, std::string_view content) {
  Status written = write_file_atomically(path, content);
  if (!written) return runtime_error(std::string(flag) + ": " + written.error().message);
  return Ok{};
}

Status check_writable_path(const std::string& path, std::string_view flag) {
  const std::string prefix = std::string(flag) + ": cannot write '" + path + "': ";
  if (path.empty()) return bad_argument(std::string(flag) + ": the file name is empty");
  struct stat st {};
  const bool exists = ::stat(path.c_str(), &st) == 0;
  if (!exists && errno != ENOENT) return bad_argument(prefix + std::strerror(errno));
  if (exists && S_ISDIR(st.st_mode)) return bad_argument(prefix + "it is a directory");
  if (exists && S_ISSOCK(st.st_mode)) return bad_argument(prefix + "it is a socket");
  if (exists && !S_ISREG(st.st_mode)) {  // a device or FIFO, written in place
    if (::access(path.c_str(), W_OK) != 0) return bad_argument(prefix + std::strerror(errno));
    return Ok{};
  }
  if (exists && is_read_only(path, st)) {
    return bad_argument(prefix + "the file is read-only (pacer never replaces a file it may not write; make it "
                                 "writable or name another)");
  }
  auto target = resolve_output_path(path);
  if (!target) return bad_argument(std::string(flag) + ": " + target.error().message);
  // A regular file, or a new one, is written beside its target and renamed.
  const std::string dir = directory_of(*target);
  if (::access(dir.c_str(), W_OK) != 0) {
    if (exists) return bad_argument(prefix + dir + ": " + std::strerror(errno));
    return bad_argument(std::string(flag) + ": cannot create '" + path + "' (" + dir + ": " + std::strerror(errno) +
                        ")");
  }
  return Ok{};
}

}  // namespace pacer
