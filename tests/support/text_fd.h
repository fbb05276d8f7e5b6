// Test support: a file descriptor to read `text` from, in place of standard input
// (cli::parse, -b @-, --targets -). An in-memory file (memfd), so any size fits
// and nothing touches the disk; closed with the object.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <string>

#include "core/unique_fd.h"

namespace pacer::testing {

class TextFd {
 public:
  explicit TextFd(const std::string& text) : fd_(::memfd_create("pacer-test-stdin", MFD_CLOEXEC)) {
    EXPECT_TRUE(fd_.valid());
    EXPECT_EQ(::write(fd_.get(), text.data(), text.size()), static_cast<ssize_t>(text.size()));
    EXPECT_EQ(::lseek(fd_.get(), 0, SEEK_SET), 0);
  }
  int get() const { return fd_.get(); }

 private:
  UniqueFd fd_;
};

}  // namespace pacer::testing
