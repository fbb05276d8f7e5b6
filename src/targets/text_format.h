// The two targets formats' parsers (text_format.cc, jsonl_format.cc); internal
// to src/targets/ (target_file.h is the interface).
#pragma once

#include <string_view>

#include "core/expected.h"
#include "targets/target_file.h"

namespace pacer::targets::detail {

// Appends the file's targets to out and sets out.origin (when any URL was seen).
Status parse_text_targets(std::string_view text, const TargetSource& source, TargetList& out);
Status parse_jsonl_targets(std::string_view text, const TargetSource& source, TargetList& out);

}  // namespace pacer::targets::detail
