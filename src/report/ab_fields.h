// ab's report fields (issue 33; docs/output.md, "ab's fields"): the Server
// header of the first response, the document length and the length
// mismatches, the bytes sent. Their text lines, their JSON object
// ("first_response"; the counts are in "counts"; report/json_reader.cc reads
// them back), and what `pacer merge` keeps. Pure functions of a RunReport; main thread.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/run_report.h"

namespace pacer::report {

// The text report's lines, as (label, text) pairs, in order.
std::vector<std::pair<std::string, std::string>> ab_fields_lines(const RunReport& r);

// The JSON report's "first_response" object.
nlohmann::ordered_json first_response_json(const RunReport& r);

// pacer merge: the first shard's Server header and document length stay; a
// shard whose document length (or its name) differs sets document_lengths_differ.
void merge_first_response(RunReport& merged, const RunReport& shard);

}  // namespace pacer::report
