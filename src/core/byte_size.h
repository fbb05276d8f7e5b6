// Byte sizes as messages and docs print them: "64 MiB", "100 KiB", "1000 bytes"
// (the largest binary unit that divides the size exactly). Pure; any thread.
#pragma once

#include <cstdint>
#include <string>

namespace pacer {

inline std::string format_byte_size(std::uint64_t bytes) {
  constexpr const char* kUnits[] = {"GiB", "MiB", "KiB"};
  for (int i = 0; i < 3; ++i) {
    const std::uint64_t unit = std::uint64_t{1} << (10 * (3 - i));
    if (bytes >= unit && bytes % unit == 0) return std::to_string(bytes / unit) + " " + kUnits[i];
  }
  return std::to_string(bytes) + (bytes == 1 ? " byte" : " bytes");
}

}  // namespace pacer
