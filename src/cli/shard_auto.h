// --shard auto and --shard auto/N: this process's shard index and count taken from
// the environment of the engine that started it (MPI, Slurm, Kubernetes, Nomad).
// The environment is read through an EnvLookup so tests pass a fake one.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "core/config.h"
#include "core/expected.h"

namespace pacer::cli {

// The value of an environment variable, or nullopt when it is not set.
using EnvLookup = std::function<std::optional<std::string>(std::string_view name)>;

// getenv(3).
EnvLookup process_environment();

struct AutoShard {
  int index = 0;
  int count = 1;
  std::string source;            // the variable the index came from ("SLURM_PROCID")
  bool starts_together = false;  // the engine starts all shards at once (Slurm step, MPI)
};

// Finds the engine, in this order of precedence: Open MPI, MPICH/Hydra (PMI), a
// Slurm step, a Slurm job array, a Kubernetes Indexed Job, Nomad. An MPI
// launcher is the innermost (it may itself run inside a Slurm job), so its rank
// wins over the Slurm variables it inherited; two engines of the same kind
// (both MPIs, or two of Slurm, Kubernetes and Nomad) that disagree are an error.
// given_count: N of auto/N, needed where the engine gives only an index and
// checked against the engine's count where it gives one.
Result<AutoShard> detect_shard(std::optional<int> given_count, const EnvLookup& env, std::string_view flag);

// "auto" or "auto/N" -> config.shard_index/count/source. Other text is not ours:
// is_auto_shard() says which.
bool is_auto_shard(std::string_view text);
Status parse_auto_shard(std::string_view text, std::string_view flag, Config& config, const EnvLookup& env);

}  // namespace pacer::cli
