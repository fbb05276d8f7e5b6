// The --log-arrivals file of `pacer serve`: every request's arrival time in
// CLOCK_MONOTONIC nanoseconds, ascending, one decimal number per line. Written
// once, by Server::stop, from the workers' in-memory records after they joined.
#pragma once

#include <string>
#include <vector>

#include "core/clock.h"
#include "core/expected.h"

namespace pacer::server {

// Merges and sorts the workers' records and writes them to path (truncating it).
// The error names the file.
Status write_arrivals_log(const std::string& path, const std::vector<const std::vector<TimeNs>*>& per_worker);

}  // namespace pacer::server
