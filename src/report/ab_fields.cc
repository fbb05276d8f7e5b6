// See ab_fields.h.
#include "report/ab_fields.h"

#include <fmt/format.h>

#include "report/units.h"
#include "stats/name_table.h"

namespace pacer::report {

std::vector<std::pair<std::string, std::string>> ab_fields_lines(const RunReport& r) {
  std::vector<std::pair<std::string, std::string>> lines;
  const stats::Counters& c = r.counters;
  if (r.server) lines.emplace_back("Server:", r.server->empty() ? "(the first response had no Server header)"
                                                                : stats::printable_name(*r.server));
  if (r.document_bytes) {
    const bool several = r.endpoints.size() > 1;
    std::string text = fmt::format("{} bytes (the first 2xx response{}{})", *r.document_bytes,
                                   several ? ", " : "", several ? r.document_name : "");
    text += fmt::format(", {} length mismatch{}", c.length_mismatches, c.length_mismatches == 1 ? "" : "es");
    if (several) text += " (each endpoint against its own first)";
    if (r.document_lengths_differ) text += "; the shards' document lengths differ (each counted against its own)";
    lines.emplace_back("Document:", std::move(text));
  }
  if (c.bytes_written > 0) {
    lines.emplace_back("Sent:", fmt::format("{} ({} bytes: request heads and bodies), {} bytes read",
                                            format_bytes(static_cast<double>(c.bytes_written)), c.bytes_written,
                                            c.bytes_read));
  }
  return lines;
}

nlohmann::ordered_json first_response_json(const RunReport& r) {
  using json = nlohmann::ordered_json;
  return {
      {"server", r.server ? json(*r.server) : json(nullptr)},
      {"document_bytes", r.document_bytes ? json(*r.document_bytes) : json(nullptr)},
      {"document_name", r.document_bytes ? json(r.document_name) : json(nullptr)},
      {"document_lengths_differ", r.document_lengths_differ},
  };
}

void merge_first_response(RunReport& merged, const RunReport& shard) {
  if (!merged.server) merged.server = shard.server;
  if (!shard.document_bytes) return;
  if (!merged.document_bytes) {
    merged.document_bytes = shard.document_bytes;
    merged.document_name = shard.document_name;
  } else if (*merged.document_bytes != *shard.document_bytes || merged.document_name != shard.document_name) {
    merged.document_lengths_differ = true;
  }
  merged.document_lengths_differ = merged.document_lengths_differ || shard.document_lengths_differ;
}

}  // namespace pacer::report
