// Test support: compares a rendered report with tests/golden/<name>.
// PACER_UPDATE_GOLDEN=1 rewrites the file instead (then review the diff).
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace pacer::testing {

inline void expect_matches_golden(const std::string& actual, const std::string& name) {
  const std::string path = std::string(PACER_GOLDEN_DIR) + "/" + name;
  if (std::getenv("PACER_UPDATE_GOLDEN") != nullptr) {
    std::ofstream(path, std::ios::binary) << actual;
    return;
  }
  std::ifstream in(path, std::ios::binary);
  ASSERT_TRUE(in.good()) << "missing golden file " << path << " (run with PACER_UPDATE_GOLDEN=1)";
  std::stringstream expected;
  expected << in.rdbuf();
  EXPECT_EQ(actual, expected.str()) << "golden file: " << path;
}

}  // namespace pacer::testing
