// The text report's evidence paragraphs (report/evidence_text.h): the verdicts
// under "Bottleneck:", the client's figures under "Client:".
#include "report/evidence_text.h"

#include <gtest/gtest.h>

#include "report/run_report.h"

namespace pacer::report {
namespace {

RunReport with_one_cpu_process() {
  RunReport r;
  evidence::WorkerLoad w;
  w.wall_ns = 10 * kNsPerS;
  w.waited_ns = kNsPerS / 10;
  r.evidence.workers = {w};
  r.evidence.verdicts = {"the client: worker 1 was busy 99 % of the run"};
  r.evidence.peak = evidence::ProcessSample{};
  r.evidence.peak->cpus_allowed = 1;
  r.evidence.peak->cpu_share = 0.91;
  return r;
}

// Issue 43 (10): "of 1 CPUs".
TEST(EvidenceText, OneCpuIsSingular) {
  RunReport r = with_one_cpu_process();
  std::string text = evidence_paragraphs(r);
  EXPECT_NE(text.find("process CPU 91 % of 1 CPU;"), std::string::npos) << text;
  r.evidence.peak->cpus_allowed = 2;
  text = evidence_paragraphs(r);
  EXPECT_NE(text.find("process CPU 91 % of 2 CPUs;"), std::string::npos) << text;
}

}  // namespace
}  // namespace pacer::report
