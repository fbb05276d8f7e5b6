// The text report's lines on the evidence (issue 28), beside the connections'
// Little's-law paragraph: each verdict as a "Bottleneck:" paragraph, the
// client's health when a verdict blames it, and a "Server:" line per
// --server-pid process and for the --server-metrics scrapes. Pure.
#pragma once

#include <string>

#include "report/run_report.h"

namespace pacer::report {

// "" when there is nothing to say (no verdict, no server sampled).
std::string evidence_paragraphs(const RunReport& r);

}  // namespace pacer::report
