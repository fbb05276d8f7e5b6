// A scenario's load shape, asked as Locust asks its LoadTestShape (issue 27):
// its step at 0 s before the run (the load the run starts with), then once a
// second from the run's start, on the main thread's controller. This part owns
// the shape's function, when it is next due, and its error; what a step does to
// the load is LoadControl's. Main thread only, but error(), which the run reads
// after it and which is kept under a lock.
#pragma once

#include <functional>
#include <mutex>
#include <optional>
#include <string>

#include "core/clock.h"
#include "core/expected.h"
#include "scenario/test_hooks.h"

namespace pacer::engine {

// A shape: the step for `run_s` seconds since the run started, nullopt to end
// the run, or an error (a Lua error in the shape: the run ends, the error is
// reported). Main thread.
using ShapeStep = scenario::ShapeStep;
using ShapeAnswer = Result<std::optional<ShapeStep>>;
using ShapeFn = std::function<ShapeAnswer(double run_s)>;

class ShapeDriver {
 public:
  static constexpr TimeNs kShapePeriodNs = kNsPerS;  // Locust asks its LoadTestShape every second

  void set(ShapeFn shape) { shape_ = std::move(shape); }
  bool has_shape() const { return static_cast<bool>(shape_); }
  // The step at 0 s (has_shape() only).
  ShapeAnswer first() const { return shape_(0.0); }
  // The run starts at start_ns (monotonic): the shape is next asked a period later.
  void started(TimeNs start_ns);

  struct Asked {
    TimeNs due_ns = 0;  // the second the shape was asked for (the main thread may be a little late)
    ShapeAnswer answer;
  };
  // Main thread, often: the shape's answer when a period has passed by now_ns
  // (asked at now_ns's offset from the start), else nullopt (no shape: never).
  std::optional<Asked> ask_if_due(TimeNs now_ns);

  // A shape's error, kept for the report (empty: none).
  void failed(std::string message);
  std::string error() const;

 private:
  ShapeFn shape_;
  TimeNs start_ns_ = 0;
  TimeNs next_tick_ns_ = 0;
  mutable std::mutex mutex_;
  std::string error_;  // under mutex_
};

}  // namespace pacer::engine
