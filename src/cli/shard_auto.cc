// --shard auto: which engine started this process, and which shard it is. See the
// header for the order of precedence; docs/distributed.md lists the variables.
#include "cli/shard_auto.h"

#include <cstdlib>
#include <vector>

#include <fmt/format.h>

namespace pacer::cli {

namespace {

// MPI launchers start the process themselves and may run inside a Slurm job, so
// their variables describe the process; a job's describe what surrounds it.
enum class Layer { kMpi, kJob };

struct Found {
  int index = 0;
  std::optional<int> count;
  std::string source;  // the index's variable
  std::string count_source;
  Layer layer = Layer::kJob;
  bool starts_together = false;
};

using Detected = Result<std::optional<Found>>;

// Unset: nullopt. Set: a whole number from 0 to 999999, or an error naming it.
Result<std::optional<int>> read_number(const EnvLookup& env, const char* name, std::string_view flag) {
  const std::optional<std::string> value = env(name);
  if (!value) return std::optional<int>{};
  if (value->empty() || value->size() > 6 || value->find_first_not_of("0123456789") != std::string::npos) {
    return bad_argument(fmt::format("{}: {} is '{}', not a shard number", flag, name, *value));
  }
  return std::optional<int>(std::atoi(value->c_str()));
}

// An engine that names the index in one variable and the count (if any) in another.
Detected plain_engine(const EnvLookup& env, const char* index_var, const char* count_var, Layer layer,
                      bool starts_together, std::string_view flag) {
  auto index = read_number(env, index_var, flag);
  if (!index) return index.error();
  if (!*index) return std::optional<Found>{};
  Found found{**index, std::nullopt, index_var, count_var ? count_var : "", layer, starts_together};
  if (count_var) {
    auto count = read_number(env, count_var, flag);
    if (!count) return count.error();
    found.count = *count;
  }
  return std::optional<Found>(found);
}

// A Slurm step (srun): SLURM_PROCID counts only inside a step. A batch script
// outside any step has SLURM_PROCID=0 too, but no SLURM_STEP_ID.
Detected slurm_step(const EnvLookup& env, std::string_view flag) {
  if (!env("SLURM_STEP_ID")) return std::optional<Found>{};
  return plain_engine(env, "SLURM_PROCID", "SLURM_STEP_NUM_TASKS", Layer::kJob, true, flag);
}

// A Slurm job array (sbatch --array=MIN-MAX:STEP): the task's place in the array.
Detected slurm_array(const EnvLookup& env, std::string_view flag) {
  auto found = plain_engine(env, "SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_COUNT", Layer::kJob, false, flag);
  if (!found || !*found) return found;
  auto min = read_number(env, "SLURM_ARRAY_TASK_MIN", flag);
  if (!min) return min.error();
  auto step = read_number(env, "SLURM_ARRAY_TASK_STEP", flag);
  if (!step) return step.error();
  const int first = min->value_or(0);
  const int stride = step->value_or(1) > 0 ? step->value_or(1) : 1;
  Found& array = **found;
  if (array.index < first || (array.index - first) % stride != 0) {
    return bad_argument(fmt::format(
        "{}: SLURM_ARRAY_TASK_ID {} is not on the array's range {}-...:{} (use --array=0-N or give --shard i/N)", flag,
        array.index, first, stride));
  }
  array.index = (array.index - first) / stride;
  return found;
}

// Every engine present, in order of precedence.
Result<std::vector<Found>> find_engines(const EnvLookup& env, std::string_view flag) {
  const Detected detected[] = {
      plain_engine(env, "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", Layer::kMpi, true, flag),
      plain_engine(env, "PMI_RANK", "PMI_SIZE", Layer::kMpi, true, flag),
      slurm_step(env, flag),
      slurm_array(env, flag),
      plain_engine(env, "JOB_COMPLETION_INDEX", nullptr, Layer::kJob, false, flag),
      plain_engine(env, "NOMAD_ALLOC_INDEX", nullptr, Layer::kJob, false, flag),
  };
  std::vector<Found> engines;
  for (const Detected& one : detected) {
    if (!one) return one.error();
    if (*one) engines.push_back(**one);
  }
  return engines;
}

std::string describe(const Found& f) {
  return f.count ? fmt::format("{} says shard {}/{}", f.source, f.index, *f.count)
                 : fmt::format("{} says shard {}", f.source, f.index);
}

}  // namespace

EnvLookup process_environment() {
  return [](std::string_view name) -> std::optional<std::string> {
    const char* value = std::getenv(std::string(name).c_str());
    if (!value) return std::nullopt;
    return std::string(value);
  };
}

Result<AutoShard> detect_shard(std::optional<int> given_count, const EnvLookup& env, std::string_view flag) {
  auto engines = find_engines(env, flag);
  if (!engines) return engines.error();
  if (engines->empty()) {
    return bad_argument(fmt::format(
        "{}: no engine found (none of OMPI_COMM_WORLD_RANK, PMI_RANK, SLURM_PROCID in a step, SLURM_ARRAY_TASK_ID, "
        "JOB_COMPLETION_INDEX, NOMAD_ALLOC_INDEX is set); give --shard i/N",
        flag));
  }
  const Found& chosen = engines->front();
  for (const Found& other : *engines) {
    if (other.layer != chosen.layer) continue;
    const bool counts_differ = chosen.count && other.count && *chosen.count != *other.count;
    if (other.index != chosen.index || counts_differ) {
      return bad_argument(fmt::format("{}: the engines disagree ({}, {}); give --shard i/N", flag, describe(chosen),
                                      describe(other)));
    }
  }
  if (chosen.count && given_count && *chosen.count != *given_count) {
    return bad_argument(fmt::format("{}: {} is {}, not {}", flag, chosen.count_source, *chosen.count, *given_count));
  }
  if (!chosen.count && !given_count) {
    return bad_argument(fmt::format("{}: {} gives no shard count; use --shard auto/N", flag, chosen.source));
  }
  const int count = chosen.count ? *chosen.count : *given_count;
  if (count < 1) return bad_argument(fmt::format("{}: {} is 0: there is no shard to run", flag, chosen.count_source));
  if (chosen.index >= count) {
    return bad_argument(
        fmt::format("{}: {} is {}, outside the {} shards (0 to {})", flag, chosen.source, chosen.index, count, count - 1));
  }
  return AutoShard{chosen.index, count, chosen.source, chosen.starts_together};
}

bool is_auto_shard(std::string_view text) { return text == "auto" || text.starts_with("auto/"); }

Status parse_auto_shard(std::string_view text, std::string_view flag, Config& config, const EnvLookup& env) {
  std::optional<int> given_count;
  if (text != "auto") {
    const std::string_view n = text.substr(5);
    if (n.empty() || n.size() > 6 || n.find_first_not_of("0123456789") != std::string_view::npos ||
        n.find_first_not_of('0') == std::string_view::npos) {
      return bad_argument(fmt::format("{}: '{}' is not auto/N (N: the number of shards, at least 1)", flag, text));
    }
    given_count = std::atoi(std::string(n).c_str());
  }
  const std::string qualified = fmt::format("{} {}", flag, text);
  auto shard = detect_shard(given_count, env, qualified);
  if (!shard) return shard.error();
  config.shard_index = shard->index;
  config.shard_count = shard->count;
  config.shard_source = shard->source;
  config.shard_starts_together = shard->starts_together;
  return Ok{};
}

}  // namespace pacer::cli
