// Base64 encoding and strict decoding. See base64.h.
#include "core/base64.h"

#include <algorithm>
#include <array>
#include <cstdint>

#include <fmt/format.h>

namespace pacer {

namespace {

constexpr std::string_view kBase64Alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

}  // namespace

std::string base64_encode(std::string_view in) {
  std::string out;
  out.reserve((in.size() + 2) / 3 * 4);
  for (std::size_t i = 0; i < in.size(); i += 3) {
    const std::size_t n = std::min<std::size_t>(3, in.size() - i);
    std::uint32_t group = 0;
    for (std::size_t j = 0; j < 3; ++j) {
      group = (group << 8) | (j < n ? static_cast<std::uint8_t>(in[i + j]) : 0u);
    }
    for (std::size_t j = 0; j < 4; ++j) {
      out.push_back(j <= n ? kBase64Alphabet[(group >> (18 - 6 * j)) & 0x3f] : '=');
    }
  }
  return out;
}

Result<std::string> base64_decode(std::string_view in) {
  if (in.size() % 4 != 0) {
    return bad_input(fmt::format("base64 text is {} characters, not a multiple of 4 (truncated?)", in.size()));
  }
  std::array<int, 256> sextet{};
  sextet.fill(-1);
  for (std::size_t i = 0; i < kBase64Alphabet.size(); ++i) {
    sextet[static_cast<std::uint8_t>(kBase64Alphabet[i])] = static_cast<int>(i);
  }
  std::string out;
  out.reserve(in.size() / 4 * 3);
  for (std::size_t i = 0; i < in.size(); i += 4) {
    std::size_t pad = 0;  // '=' may end only the last group, once or twice
    if (i + 4 == in.size() && in[i + 3] == '=') pad = in[i + 2] == '=' ? 2 : 1;
    std::uint32_t group = 0;
    for (std::size_t j = 0; j < 4; ++j) {
      const int v = j < 4 - pad ? sextet[static_cast<std::uint8_t>(in[i + j])] : 0;
      if (v < 0) {
        return bad_input(fmt::format("base64 text has an invalid character (byte 0x{:02x}) at offset {}",
                                     static_cast<std::uint8_t>(in[i + j]), i + j));
      }
      group = (group << 6) | static_cast<std::uint32_t>(v);
    }
    for (std::size_t j = 0; j < 3 - pad; ++j) out.push_back(static_cast<char>((group >> (16 - 8 * j)) & 0xff));
  }
  return out;
}

}  // namespace pacer
