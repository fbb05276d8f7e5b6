// The `status` errors of one request name by code: the responses >= 400 that
// stayed failures (those a scenario's task accepted with u:success() are taken
// back out). The failures files name them ("HTTP 503 x10"; Locust's HTTPError
// per code) and their sum is the name's errors.status. A few codes per name, in
// the order first seen, then the rest together: fixed storage, no allocation
// when recording. Plain data; one worker, merged after the join.
#pragma once

#include <array>
#include <cstdint>

namespace pacer::stats {

class StatusErrors {
 public:
  static constexpr std::size_t kCodes = 8;  // distinct codes kept per name; more go to other()

  // One more response with `status` (>= 400) counted an error; n of them.
  void add(int status, std::uint64_t n = 1) {
    for (std::size_t i = 0; i < kCodes; ++i) {
      if (codes_[i] == status || codes_[i] == 0) {
        codes_[i] = static_cast<std::uint16_t>(status);
        counts_[i] += n;
        return;
      }
    }
    other_ += n;
  }
  // One response with `status` is no error after all (u:success()).
  void take_back(int status) {
    for (std::size_t i = 0; i < kCodes && codes_[i] != 0; ++i) {
      if (codes_[i] == status) {
        if (counts_[i] > 0) --counts_[i];
        return;
      }
    }
    if (other_ > 0) --other_;
  }
  void merge(const StatusErrors& o) {
    o.for_each([&](int code, std::uint64_t n) { add(code, n); });
    other_ += o.other_;
  }
  // fn(code, count) for each code kept with a count, in the order first seen.
  template <typename Fn>
  void for_each(Fn&& fn) const {
    for (std::size_t i = 0; i < kCodes && codes_[i] != 0; ++i) {
      if (counts_[i] > 0) fn(static_cast<int>(codes_[i]), counts_[i]);
    }
  }
  // Errors whose code was past the first kCodes distinct ones.
  std::uint64_t other() const { return other_; }
  void add_other(std::uint64_t n) { other_ += n; }
  std::uint64_t total() const {
    std::uint64_t sum = other_;
    for (std::uint64_t n : counts_) sum += n;
    return sum;
  }

 private:
  std::array<std::uint16_t, kCodes> codes_{};  // 0: free
  std::array<std::uint64_t, kCodes> counts_{};
  std::uint64_t other_ = 0;
};

}  // namespace pacer::stats
