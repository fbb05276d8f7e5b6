// A saturated server, told apart from too few connections (issue 43, item 14).
// In the open model, when the target is not carried, Little's law says -c
// connections at a mean service time S carry c / S requests per second. That is
// advice only when S stays put as connections are added: a server that answers
// at most X per second through one queue makes S grow (its queue) until c / S is
// X, whatever c is. The sign, interval after interval: the service time grows
// while the completion rate stays flat below the target (in two rises in a row,
// or to twice its lowest interval's). Once seen, the run's
// verdict is the server's, and no line advises more connections. Main thread
// (evidence::Watch feeds it each interval before its line is written).
#pragma once

#include <cstdint>
#include <string>

#include "core/clock.h"

namespace pacer::evidence {

class Saturation {
 public:
  // One interval of the open model: its responses' mean service time, its
  // completion rate and its target. An interval without responses is skipped.
  void observe(double mean_service_ns, double completed_per_s, double target_per_s);
  // Seen at least once in the run (sticky: more connections would only queue more).
  bool saturated() const { return saturated_; }
  // "the server: saturated at about 194 requests/s: ..." (without a label); "" when not saturated.
  std::string verdict() const;
  // The short phrase for the progress lines: "the server: saturated at ~194/s, service 152ms -> 330ms".
  std::string phrase() const;

 private:
  // Growth between intervals that counts (service time) and what is flat (completions).
  static constexpr double kGrowth = 1.10;
  static constexpr double kFlat = 0.10;
  static constexpr double kBelowTarget = 0.97;
  static constexpr int kStreak = 2;  // rises in a row: three intervals
  static constexpr double kDoubled = 2.0;  // or the service time at twice its lowest interval's

  bool has_last_ = false;
  double last_service_ns_ = 0;
  double last_rate_per_s_ = 0;
  int streak_ = 0;
  bool saturated_ = false;
  double low_service_ns_ = 0;   // the lowest interval mean seen (the server before its queue)
  double high_service_ns_ = 0;  // the highest since
  double rate_per_s_ = 0;       // the completion rate when saturation was last seen
  double target_per_s_ = 0;
};

}  // namespace pacer::evidence
