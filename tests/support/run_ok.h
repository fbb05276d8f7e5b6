// run_ok(): engine::run for tests that expect the run to succeed; a failure is
// reported (with its message) and an empty report returned. Test thread.
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <utility>

#include "core/config.h"
#include "engine/run.h"
#include "report/run_report.h"

namespace pacer::testing {

inline report::RunReport run_ok(const Config& config) {
  std::atomic<bool> stop{false};
  auto result = engine::run(config, stop);
  EXPECT_TRUE(result.ok()) << (result.ok() ? "" : result.error().message);
  return result.ok() ? std::move(*result) : report::RunReport{};
}

}  // namespace pacer::testing
