// The pacing floor of this machine (bench/pacing.sh): how late a thread that
// sleeps until an absolute time (clock_nanosleep, timer slack 1 ns, as pacer's
// workers sleep) wakes, at a given rate, for a given time. Nothing else runs in
// it, so what it measures is the kernel's and the hypervisor's wake-up delay,
// which no client that sleeps between sends can go below.
// Usage: wake_latency RATE SECONDS   (prints p50, p99, p99.9 and max lateness in us)
#include <sys/prctl.h>
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

long long now_ns() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1'000'000'000LL + t.tv_nsec;
}

}  // namespace

int main(int argc, char** argv) {
  const double rate = argc > 1 ? std::atof(argv[1]) : 0;
  const double seconds = argc > 2 ? std::atof(argv[2]) : 0;
  if (rate <= 0 || seconds <= 0 || rate * seconds > 1e8) {
    std::fprintf(stderr, "usage: wake_latency RATE SECONDS (both > 0)\n");
    return 2;
  }
  prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
  const auto count = static_cast<std::size_t>(rate * seconds);
  const auto period = static_cast<long long>(1e9 / rate);
  std::vector<long long> late(count);
  long long due = now_ns();
  for (std::size_t i = 0; i < count; ++i) {
    due += period;
    const timespec at{static_cast<time_t>(due / 1'000'000'000LL), static_cast<long>(due % 1'000'000'000LL)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, nullptr) != 0) {
    }
    late[i] = now_ns() - due;
  }
  std::sort(late.begin(), late.end());
  const auto at = [&](double p) { return static_cast<double>(late[std::min(count - 1, static_cast<std::size_t>(p * static_cast<double>(count)))]) / 1e3; };
  std::printf("%.1f %.1f %.1f %.1f\n", at(0.5), at(0.99), at(0.999), static_cast<double>(late.back()) / 1e3);
  return 0;
}
