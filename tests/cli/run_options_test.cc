// The option tables (src/cli/option_table.h): every id of the run's
// (cli/run_option_ids.h) and of each subcommand's claimed by exactly one row with
// a handler, dispatch by id, and each help text listing exactly the options its
// scanner accepts (so the man pages and completions made from it do too).
#include "cli/run_options.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <iterator>
#include <span>
#include <set>
#include <string>
#include <vector>

#include "cli/cert_options.h"
#include "cli/cli.h"
#include "cli/merge_options.h"
#include "cli/report_options.h"
#include "cli/serve_options.h"
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

// The options a help text defines that the specs do not scan, and those scanned that it does not define.
struct HelpAndScanner {
  std::vector<std::string> only_in_help;
  std::vector<std::string> only_scanned;
};

HelpAndScanner compare_help_and_scanner(const std::string& help, std::span<const OptionSpec> specs,
                                        std::set<std::string> scanned) {
  std::set<std::string> in_help;
  for (const docgen::HelpOption& option : docgen::options_of(docgen::parse_help(help))) in_help.insert(option.name);
  for (const OptionSpec& spec : specs) {
    scanned.insert("--" + std::string(spec.long_name));
    if (spec.short_name != '\0') scanned.insert(std::string("-") + spec.short_name);
  }
  HelpAndScanner out;
  std::set_difference(in_help.begin(), in_help.end(), scanned.begin(), scanned.end(), std::back_inserter(out.only_in_help));
  std::set_difference(scanned.begin(), scanned.end(), in_help.begin(), in_help.end(), std::back_inserter(out.only_scanned));
  return out;
}

// --config and --print-config are read before the scan (cli/config_layers.h).
TEST(RunOptions, HelpListsExactlyTheOptionsTheScannerAccepts) {
  const HelpAndScanner run = compare_help_and_scanner(usage(), run_option_specs(), {"--config", "--print-config"});
  EXPECT_EQ(run.only_in_help, std::vector<std::string>{});
  EXPECT_EQ(run.only_scanned, std::vector<std::string>{});
}

TEST(SubcommandOptions, EveryIdIsClaimedByExactlyOneRowAndHelpListsExactlyTheScannedOptions) {
  const struct {
    const char* command;
    OptionTableReport table;
    std::string help;
    std::set<std::string> outside_the_table;
  } commands[] = {{"serve", serve_options_table(), serve_usage(), {"--tls"}},  // --tls CERT KEY: taken before the scan
                  {"merge", merge_options_table(), merge_usage(), {}},
                  {"report", report_options_table(), report_usage(), {}},
                  {"cert", cert_options_table(), cert_usage(), {}}};
  for (const auto& c : commands) {
    EXPECT_EQ(c.table.faults, std::vector<std::string>{}) << c.command;
    const HelpAndScanner compared = compare_help_and_scanner(c.help, c.table.specs, c.outside_the_table);
    EXPECT_EQ(compared.only_in_help, std::vector<std::string>{}) << c.command;
    EXPECT_EQ(compared.only_scanned, std::vector<std::string>{}) << c.command;
  }
}

}  // namespace
}  // namespace pacer::cli
