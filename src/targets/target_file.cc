// Reading a targets file and telling its format. See target_file.h.
#include "targets/target_file.h"

#include <fcntl.h>
#include <strings.h>

#include <cerrno>
#include <cstring>
#include <limits>

#include <fmt/format.h>

#include "core/read_fd.h"
#include "core/unique_fd.h"
#include "proto/header_rules.h"
#include "targets/text_format.h"

namespace pacer::targets {

Result<TargetList> parse_targets(std::string_view text, const TargetSource& source) {
  TargetList out;
  const std::size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return bad_input(fmt::format("{}: no targets (the file is empty)", source.name));
  const bool jsonl = text[first] == '{';
  Status parsed = jsonl ? detail::parse_jsonl_targets(text, source, out) : detail::parse_text_targets(text, source, out);
  if (!parsed) return parsed.error();
  if (out.targets.empty()) return bad_input(fmt::format("{}: no targets (only comments)", source.name));
  std::uint64_t total_weight = 0;
  for (const RequestTarget& t : out.targets) total_weight += t.weight;
  if (total_weight > kMaxTotalWeight) {
    return bad_input(fmt::format("{}: the weights add up to {}, more than {}", source.name, total_weight,
                                 kMaxTotalWeight));
  }
  return out;
}

Result<TargetList> read_targets(const std::string& path, int stdin_fd, std::optional<Target> base,
                                std::uint64_t max_body_bytes) {
  TargetSource source;
  source.base = std::move(base);
  source.max_body_bytes = max_body_bytes;
  const auto cannot_read = [&](int err) {
    return bad_input(fmt::format("--targets: cannot read '{}': {}", path, std::strerror(err)));
  };
  UniqueFd file;
  if (path == "-") {
    source.name = "stdin";
  } else {
    source.name = path;
    const std::size_t slash = path.rfind('/');
    source.body_dir = slash == std::string::npos ? "" : path.substr(0, slash == 0 ? 1 : slash);
    file = UniqueFd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (!file.valid()) return cannot_read(errno);
  }
  const ReadToEnd text = read_to_end(file.valid() ? file.get() : stdin_fd, std::numeric_limits<std::uint64_t>::max());
  if (text.err != 0) return cannot_read(text.err);
  return parse_targets(text.bytes, source);
}

Status check_target_framing(const RequestTarget& request, bool http2) {
  proto::HeaderContext context;
  if (request.body) context.body_bytes = request.body->size();
  context.http2 = http2;
  if (std::string problem = proto::header_list_problem(request.headers, context); !problem.empty()) {
    return bad_input(fmt::format("{}: {}", request.where, problem));
  }
  return Ok{};
}

Result<TargetsOrder> parse_targets_order(std::string_view text, std::string_view flag) {
  if (text == "round-robin") return TargetsOrder::kRoundRobin;
  if (text == "random") return TargetsOrder::kRandom;
  if (text == "weighted") return TargetsOrder::kWeighted;
  return bad_argument(fmt::format("{}: expected round-robin, random or weighted, got '{}'", flag, text));
}

const char* targets_order_name(TargetsOrder order) {
  switch (order) {
    case TargetsOrder::kRoundRobin: return "round-robin";
    case TargetsOrder::kRandom: return "random";
    case TargetsOrder::kWeighted: return "weighted";
  }
  return "round-robin";
}

}  // namespace pacer::targets
