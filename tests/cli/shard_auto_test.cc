// --shard auto: every engine's variables, the order of precedence and the errors,
// with a fake environment (the process's own is never touched).
#include "cli/shard_auto.h"

#include <map>

#include <gtest/gtest.h>

namespace pacer::cli {
namespace {

using Vars = std::map<std::string, std::string, std::less<>>;

EnvLookup fake(Vars vars) {
  return [vars = std::move(vars)](std::string_view name) -> std::optional<std::string> {
    const auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

AutoShard detected(const Vars& vars, std::optional<int> count = std::nullopt) {
  auto shard = detect_shard(count, fake(vars), "--shard auto");
  EXPECT_TRUE(shard.ok()) << shard.error().message;
  return shard.ok() ? *shard : AutoShard{-1, -1, "", false};
}

std::string error_of(const Vars& vars, std::optional<int> count = std::nullopt) {
  auto shard = detect_shard(count, fake(vars), "--shard auto");
  EXPECT_FALSE(shard.ok());
  return shard.ok() ? "" : shard.error().message;
}

void expect_shard(const AutoShard& s, int index, int count, const std::string& source, bool together) {
  EXPECT_EQ(s.index, index);
  EXPECT_EQ(s.count, count);
  EXPECT_EQ(s.source, source);
  EXPECT_EQ(s.starts_together, together);
}

TEST(ShardAuto, SlurmStepGivesIndexAndCount) {
  expect_shard(detected({{"SLURM_STEP_ID", "0"}, {"SLURM_PROCID", "2"}, {"SLURM_STEP_NUM_TASKS", "4"}}), 2, 4,
               "SLURM_PROCID", true);
}

TEST(ShardAuto, SlurmProcidOutsideAStepIsTheBatchScriptNotAShard) {
  // An sbatch script has SLURM_PROCID=0 but no SLURM_STEP_ID.
  EXPECT_NE(error_of({{"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "4"}}).find("no engine found"), std::string::npos);
}

TEST(ShardAuto, SlurmArrayCountsFromItsMinimumInSteps) {
  const Vars array{{"SLURM_ARRAY_TASK_ID", "9"}, {"SLURM_ARRAY_TASK_MIN", "3"}, {"SLURM_ARRAY_TASK_STEP", "3"},
                   {"SLURM_ARRAY_TASK_COUNT", "3"}, {"SLURM_PROCID", "0"}};
  expect_shard(detected(array), 2, 3, "SLURM_ARRAY_TASK_ID", false);
  expect_shard(detected({{"SLURM_ARRAY_TASK_ID", "5"}, {"SLURM_ARRAY_TASK_MIN", "4"}, {"SLURM_ARRAY_TASK_COUNT", "2"}}),
               1, 2, "SLURM_ARRAY_TASK_ID", false);
  EXPECT_EQ(error_of({{"SLURM_ARRAY_TASK_ID", "4"}, {"SLURM_ARRAY_TASK_MIN", "3"}, {"SLURM_ARRAY_TASK_STEP", "3"},
                      {"SLURM_ARRAY_TASK_COUNT", "3"}}),
            "--shard auto: SLURM_ARRAY_TASK_ID 4 is not on the array's range 3-...:3 (use --array=0-N or give --shard i/N)");
}

TEST(ShardAuto, OpenMpiAndMpich) {
  expect_shard(detected({{"OMPI_COMM_WORLD_RANK", "3"}, {"OMPI_COMM_WORLD_SIZE", "4"}}), 3, 4, "OMPI_COMM_WORLD_RANK",
               true);
  expect_shard(detected({{"PMI_RANK", "1"}, {"PMI_SIZE", "2"}, {"PMI_FD", "6"}}), 1, 2, "PMI_RANK", true);
}

TEST(ShardAuto, KubernetesAndNomadNeedTheCount) {
  expect_shard(detected({{"JOB_COMPLETION_INDEX", "3"}}, 4), 3, 4, "JOB_COMPLETION_INDEX", false);
  expect_shard(detected({{"NOMAD_ALLOC_INDEX", "0"}}, 2), 0, 2, "NOMAD_ALLOC_INDEX", false);
  EXPECT_EQ(error_of({{"JOB_COMPLETION_INDEX", "3"}}), "--shard auto: JOB_COMPLETION_INDEX gives no shard count; use --shard auto/N");
  EXPECT_EQ(error_of({{"JOB_COMPLETION_INDEX", "4"}}, 4),
            "--shard auto: JOB_COMPLETION_INDEX is 4, outside the 4 shards (0 to 3)");
}

TEST(ShardAuto, AGivenCountMustMatchTheEnginesCount) {
  expect_shard(detected({{"PMI_RANK", "1"}, {"PMI_SIZE", "2"}}, 2), 1, 2, "PMI_RANK", true);
  EXPECT_EQ(error_of({{"PMI_RANK", "1"}, {"PMI_SIZE", "2"}}, 4), "--shard auto: PMI_SIZE is 2, not 4");
}

TEST(ShardAuto, MpiWinsOverTheSlurmJobItRunsIn) {
  // mpirun inside an srun step: Slurm's variables describe mpirun's step, the rank the process.
  expect_shard(detected({{"SLURM_STEP_ID", "0"}, {"SLURM_PROCID", "0"}, {"SLURM_STEP_NUM_TASKS", "1"},
                         {"OMPI_COMM_WORLD_RANK", "3"}, {"OMPI_COMM_WORLD_SIZE", "4"}}),
               3, 4, "OMPI_COMM_WORLD_RANK", true);
  // srun --mpi=pmi2 sets PMI_RANK too; they agree.
  expect_shard(detected({{"SLURM_STEP_ID", "0"}, {"SLURM_PROCID", "1"}, {"SLURM_STEP_NUM_TASKS", "2"},
                         {"PMI_RANK", "1"}, {"PMI_SIZE", "2"}}),
               1, 2, "PMI_RANK", true);
}

TEST(ShardAuto, PrecedenceAmongJobEnginesThatAgree) {
  expect_shard(detected({{"SLURM_STEP_ID", "0"}, {"SLURM_PROCID", "1"}, {"SLURM_STEP_NUM_TASKS", "2"},
                         {"JOB_COMPLETION_INDEX", "1"}}),
               1, 2, "SLURM_PROCID", true);
  expect_shard(detected({{"JOB_COMPLETION_INDEX", "1"}, {"NOMAD_ALLOC_INDEX", "1"}}, 3), 1, 3, "JOB_COMPLETION_INDEX",
               false);
}

TEST(ShardAuto, EnginesThatDisagreeAreAnError) {
  EXPECT_EQ(error_of({{"OMPI_COMM_WORLD_RANK", "1"}, {"OMPI_COMM_WORLD_SIZE", "4"}, {"PMI_RANK", "0"}, {"PMI_SIZE", "4"}}),
            "--shard auto: the engines disagree (OMPI_COMM_WORLD_RANK says shard 1/4, PMI_RANK says shard 0/4); "
            "give --shard i/N");
  // A step inside an array job: two levels of shards, no way to tell which is meant.
  EXPECT_EQ(error_of({{"SLURM_STEP_ID", "0"}, {"SLURM_PROCID", "0"}, {"SLURM_STEP_NUM_TASKS", "4"},
                      {"SLURM_ARRAY_TASK_ID", "0"}, {"SLURM_ARRAY_TASK_MIN", "0"}, {"SLURM_ARRAY_TASK_COUNT", "3"}}),
            "--shard auto: the engines disagree (SLURM_PROCID says shard 0/4, SLURM_ARRAY_TASK_ID says shard 0/3); "
            "give --shard i/N");
  EXPECT_NE(error_of({{"JOB_COMPLETION_INDEX", "1"}, {"NOMAD_ALLOC_INDEX", "2"}}, 3).find("disagree"),
            std::string::npos);
}

TEST(ShardAuto, NoEngineAndBadValues) {
  EXPECT_EQ(error_of({}),
            "--shard auto: no engine found (none of OMPI_COMM_WORLD_RANK, PMI_RANK, SLURM_PROCID in a step, "
            "SLURM_ARRAY_TASK_ID, JOB_COMPLETION_INDEX, NOMAD_ALLOC_INDEX is set); give --shard i/N");
  EXPECT_EQ(error_of({{"PMI_RANK", "one"}, {"PMI_SIZE", "2"}}), "--shard auto: PMI_RANK is 'one', not a shard number");
  EXPECT_EQ(error_of({{"PMI_RANK", ""}}), "--shard auto: PMI_RANK is '', not a shard number");
  EXPECT_EQ(error_of({{"OMPI_COMM_WORLD_RANK", "0"}, {"OMPI_COMM_WORLD_SIZE", "0"}}),
            "--shard auto: OMPI_COMM_WORLD_SIZE is 0: there is no shard to run");
  EXPECT_EQ(error_of({{"SLURM_STEP_ID", "0"}, {"SLURM_PROCID", "4"}, {"SLURM_STEP_NUM_TASKS", "4"}}),
            "--shard auto: SLURM_PROCID is 4, outside the 4 shards (0 to 3)");
}

TEST(ShardAuto, ParseAutoShardFillsTheConfig) {
  Config c;
  ASSERT_TRUE(parse_auto_shard("auto/4", "--shard", c, fake({{"JOB_COMPLETION_INDEX", "2"}})).ok());
  EXPECT_EQ(c.shard_index, 2);
  EXPECT_EQ(c.shard_count, 4);
  EXPECT_EQ(c.shard_source, "JOB_COMPLETION_INDEX");
  EXPECT_FALSE(c.shard_starts_together);
  EXPECT_EQ(parse_auto_shard("auto/0", "--shard", c, fake({})).error().message,
            "--shard: 'auto/0' is not auto/N (N: the number of shards, at least 1)");
  EXPECT_FALSE(parse_auto_shard("auto/x", "--shard", c, fake({})).ok());
  EXPECT_EQ(parse_auto_shard("auto/3", "--shard", c, fake({})).error().message.substr(0, 34),
            "--shard auto/3: no engine found (n");
  EXPECT_TRUE(is_auto_shard("auto"));
  EXPECT_TRUE(is_auto_shard("auto/2"));
  EXPECT_FALSE(is_auto_shard("automatic"));
  EXPECT_FALSE(is_auto_shard("0/2"));
}

}  // namespace
}  // namespace pacer::cli
