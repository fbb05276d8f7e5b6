// The run's option tables (src/cli/run_options.h, option_table.h): every id of
// cli/run_option_ids.h claimed by exactly one row with a handler, dispatch by id,
// and the help text listing exactly the options the scanner accepts (so the man
// page and completions made from it do too).
#include "cli/run_options.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "cli/cli.h"
#include "docgen/help_text.h"

namespace pacer::cli {
namespace {

struct TableProbeDraft {
  int applied = 0;
};

Status count_applied(const ScannedOption&, TableProbeDraft& draft) {
  ++draft.applied;
  return Ok{};
}

TEST(RunOptions, EveryIdIsClaimedByExactlyOneRowWithAHandler) {
  EXPECT_EQ(table_faults(run_option_rows(), opt::kCount), std::vector<std::string>{});
  EXPECT_EQ(run_option_rows().size(), static_cast<std::size_t>(opt::kCount));
  ASSERT_EQ(run_option_specs().size(), run_option_rows().size());
  for (std::size_t i = 0; i < run_option_rows().size(); ++i) {
    EXPECT_EQ(run_option_specs()[i].long_name, run_option_rows()[i].spec.long_name);
  }
}

TEST(RunOptions, TableFaultsNameAnUnclaimedIdATwiceClaimedIdAMissingHandlerAndASharedName) {
  constexpr int kIds = 3;
  const std::vector<OptionRow<TableProbeDraft>> sound = {{{0, 'a', "alpha", false}, &count_applied},
                                                         {{1, '\0', "beta", true}, &count_applied},
                                                         {{2, 'g', "gamma", false}, &count_applied}};
  EXPECT_TRUE(table_faults<TableProbeDraft>(sound, kIds).empty());
  // An id in the enum that no row claims (a scratch option added to the ids only).
  EXPECT_EQ(table_faults<TableProbeDraft>(sound, kIds + 1),
            std::vector<std::string>{"option id 3: claimed by 0 rows, not 1"});
  std::vector<OptionRow<TableProbeDraft>> twice = sound;
  twice[2].spec.id = 1;
  EXPECT_EQ(table_faults<TableProbeDraft>(twice, kIds),
            (std::vector<std::string>{"option id 1: claimed by 2 rows, not 1", "option id 2: claimed by 0 rows, not 1"}));
  std::vector<OptionRow<TableProbeDraft>> no_handler = sound;
  no_handler[1].apply = nullptr;
  EXPECT_EQ(table_faults<TableProbeDraft>(no_handler, kIds), std::vector<std::string>{"--beta: no handler"});
  std::vector<OptionRow<TableProbeDraft>> shared = sound;
  shared[2].spec.short_name = 'a';
  shared[1].spec.long_name = "alpha";
  EXPECT_EQ(table_faults<TableProbeDraft>(shared, kIds),
            (std::vector<std::string>{"--alpha: two rows", "-a: both --alpha and --gamma"}));
  std::vector<OptionRow<TableProbeDraft>> out_of_range = sound;
  out_of_range[2].spec.id = 7;
  EXPECT_EQ(table_faults<TableProbeDraft>(out_of_range, kIds),
            (std::vector<std::string>{"--gamma: id 7 out of range", "option id 2: claimed by 0 rows, not 1"}));
}

TEST(RunOptions, AnOptionNoRowClaimsIsAnInternalErrorNotASilentSuccess) {
  const std::vector<OptionRow<TableProbeDraft>> rows = {{{0, 'a', "alpha", false}, &count_applied}};
  TableProbeDraft draft;
  const std::vector<ScannedOption> claimed = {{0, "-a", ""}};
  ASSERT_TRUE(apply_options<TableProbeDraft>(claimed, rows, draft));
  EXPECT_EQ(draft.applied, 1);
  const std::vector<ScannedOption> unclaimed = {{0, "-a", ""}, {1, "--scratch", ""}};
  const Status status = apply_options<TableProbeDraft>(unclaimed, rows, draft);
  ASSERT_FALSE(status);
  EXPECT_EQ(status.error().kind, ErrorKind::kRuntime);
  EXPECT_NE(status.error().message.find("--scratch"), std::string::npos) << status.error().message;

  RunDraft run;
  const std::vector<ScannedOption> past_the_ids = {{opt::kCount, "--scratch", ""}};
  const Status unknown = apply_run_options(past_the_ids, run);
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().kind, ErrorKind::kRuntime);
}

TEST(RunOptions, DispatchGoesToTheRowOfTheId) {
  RunDraft draft;
  const std::vector<ScannedOption> options = {{opt::kConnections, "-c", "7"}, {opt::kHttp2, "--http2", ""},
                                              {opt::kCookie, "--cookie", "a=b"}, {opt::kSweep, "--sweep", "10,20"}};
  ASSERT_TRUE(apply_run_options(options, draft));
  EXPECT_EQ(draft.config.connections, 7);
  EXPECT_TRUE(draft.config.http2);
  EXPECT_EQ(draft.config.cookies, std::vector<std::string>{"a=b"});
  EXPECT_EQ(draft.config.capacity.sweep_rates, (std::vector<double>{10, 20}));
}

// --config and --print-config are read before the scan (cli/config_layers.h).
TEST(RunOptions, HelpListsExactlyTheOptionsTheScannerAccepts) {
  std::set<std::string> in_help;
  for (const docgen::HelpOption& option : docgen::options_of(docgen::parse_help(usage()))) in_help.insert(option.name);
  std::set<std::string> scanned = {"--config", "--print-config"};
  for (const OptionSpec& spec : run_option_specs()) {
    scanned.insert("--" + std::string(spec.long_name));
    if (spec.short_name != '\0') scanned.insert(std::string("-") + spec.short_name);
  }
  std::vector<std::string> only_in_help;
  std::set_difference(in_help.begin(), in_help.end(), scanned.begin(), scanned.end(), std::back_inserter(only_in_help));
  std::vector<std::string> only_scanned;
  std::set_difference(scanned.begin(), scanned.end(), in_help.begin(), in_help.end(), std::back_inserter(only_scanned));
  EXPECT_EQ(only_in_help, std::vector<std::string>{});
  EXPECT_EQ(only_scanned, std::vector<std::string>{});
}

}  // namespace
}  // namespace pacer::cli
