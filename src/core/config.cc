// Small derived quantities of Config.
#include "core/config.h"

#include <algorithm>

namespace pacer {

std::string Target::host_header() const {
  std::string out = host.find(':') != std::string::npos ? "[" + host + "]" : host;
  const std::uint16_t default_port = is_tls() ? 443 : 80;
  if (port != default_port) out += ":" + std::to_string(port);
  return out;
}

const char* load_model_name(LoadModel model) {
  switch (model) {
    case LoadModel::kClosed: return "closed";
    case LoadModel::kConstant: return "constant";
    case LoadModel::kRamp: return "ramp";
    case LoadModel::kStages: return "stages";
  }
  return "closed";
}

std::vector<int> connections_per_worker(int threads, int connections) {
  const int workers = std::max(1, std::min(threads, connections));
  std::vector<int> share(static_cast<std::size_t>(workers), connections / workers);
  for (int i = 0; i < connections % workers; ++i) ++share[static_cast<std::size_t>(i)];
  return share;
}

std::vector<OutputFile> Config::output_files() const {
  std::vector<OutputFile> files;
  if (!output_path.empty()) files.push_back({"-o", output_path});
  if (!hgrm_path.empty()) files.push_back({"--hdr", hgrm_path});
  if (!timeseries_path.empty() && timeseries_path != "-") files.push_back({"--timeseries", timeseries_path});
  if (!html_path.empty()) files.push_back({"--html", html_path});
  if (!request_log.path.empty()) files.push_back({"--log-requests", request_log.path});
  if (!csv_prefix.empty()) {
    for (const char* suffix : {"_stats.csv", "_history.csv", "_failures.csv"}) files.push_back({"--csv", csv_prefix + suffix});
  }
  return files;
}

}  // namespace pacer
