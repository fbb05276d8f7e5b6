// The text report's lines on the evidence (issue 28), beside the connections'
// Little's-law paragraph: each verdict as a "Bottleneck:" paragraph, the
// client's health when a verdict blames it, a "Server pid:" line per
// --server-pid process and a "Scrapes:" line for the --server-metrics scrapes
// ("Server:" is ab's Server header alone). Pure.
#pragma once

#include <string>

#include "report/run_report.h"

namespace pacer::report {

// "" when there is nothing to say (no verdict, no server sampled).
std::string evidence_paragraphs(const RunReport& r);

}  // namespace pacer::report
