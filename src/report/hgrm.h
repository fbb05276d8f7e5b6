// The .hgrm percentile distribution: the text HdrHistogram's Java
// outputPercentileDistribution(out, 5, scaling) prints (and wrk2 and
// HistogramLogProcessor write), reproduced character for character so that
// hdrhistogram.github.io's plotter and existing scripts read pacer's files.
// Pure function of a Histogram; safe from any thread.
#pragma once

#include <string>

#include "stats/histogram.h"

namespace pacer::report {

// Renders histogram's percentile distribution with 5 ticks per half distance to
// 100%, values divided by output_value_unit_scaling (pacer's latency histograms
// are in ns; 1e6 prints milliseconds, like wrk2), followed by the Mean/StdDeviation,
// Max/Total count and Buckets/SubBuckets footer. output_value_unit_scaling > 0.
// An empty histogram renders the header and footer only, as Java does.
std::string render_hgrm(const stats::Histogram& histogram, double output_value_unit_scaling);

}  // namespace pacer::report
