// The help texts read back as a structure, and the man pages and completions made
// from them (src/docgen/).
#include "docgen/help_text.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "cli/cli.h"
#include "docgen/completion.h"
#include "docgen/man_page.h"

namespace pacer::docgen {
namespace {

constexpr const char* kSample = R"(Usage: pacer thing [options] FILE...
       pacer thing --other

An opening paragraph that runs
over two lines.

Options:                                                      [default]
  -c, --count N        how many to do; the
                       text goes on here                      [10]
      --long-option-name SIZE
                       the term is wider than the column      [64k]
      --flag           no argument
                                                        [off, as wrk]
      --force, --allow-missing, --tolerance T
                       three at once
      --tls CERT KEY   two arguments

Exit codes:
  0  ok
  130, 143  stopped
)";

const HelpOption* find(const std::vector<HelpOption>& options, std::string_view name) {
  const auto it = std::find_if(options.begin(), options.end(), [&](const HelpOption& o) { return o.name == name; });
  return it == options.end() ? nullptr : &*it;
}

TEST(HelpText, ReadsSynopsisParagraphsEntriesAndDefaults) {
  const HelpPage page = parse_help(kSample);
  ASSERT_EQ(page.synopsis.size(), 2u);
  EXPECT_EQ(page.synopsis[1], "pacer thing --other");
  ASSERT_EQ(page.sections.size(), 3u);
  EXPECT_EQ(page.sections[0].title, "");
  ASSERT_EQ(page.sections[0].blocks.size(), 1u);
  EXPECT_EQ(page.sections[0].blocks[0].text, "An opening paragraph that runs over two lines.");
  const HelpSection& options = page.sections[1];
  EXPECT_EQ(options.title, "Options");
  ASSERT_EQ(options.blocks.size(), 5u);
  EXPECT_EQ(options.blocks[0].term, "-c, --count N");
  EXPECT_EQ(options.blocks[0].text, "how many to do; the text goes on here");
  EXPECT_EQ(options.blocks[0].default_value, "10");
  EXPECT_EQ(options.blocks[1].term, "--long-option-name SIZE");
  EXPECT_EQ(options.blocks[1].default_value, "64k");
  EXPECT_EQ(options.blocks[2].default_value, "off, as wrk");
  EXPECT_EQ(options.blocks[2].text, "no argument");
  const HelpSection& exits = page.sections[2];
  EXPECT_EQ(exits.title, "Exit codes");
  ASSERT_EQ(exits.blocks.size(), 2u);
  EXPECT_EQ(exits.blocks[1].term, "130, 143");
  EXPECT_EQ(exits.blocks[1].text, "stopped");
}

TEST(HelpText, ShortOptionsShareTheLongOnesArgument) {
  const std::vector<HelpOption> options = options_of(parse_help(kSample));
  ASSERT_NE(find(options, "-c"), nullptr);
  EXPECT_EQ(find(options, "-c")->arguments, std::vector<std::string>{"N"});
  EXPECT_EQ(find(options, "--count")->summary, "how many to do");
  EXPECT_TRUE(find(options, "--force")->arguments.empty());
  EXPECT_EQ(find(options, "--tolerance")->arguments, std::vector<std::string>{"T"});
  EXPECT_EQ(find(options, "--tls")->arguments, (std::vector<std::string>{"CERT", "KEY"}));
  EXPECT_EQ(options.size(), 8u);
}

TEST(HelpText, ReadsEveryRunOptionOfTheRealHelp) {
  const HelpPage page = parse_help(cli::usage());
  const std::vector<HelpOption> options = options_of(page);
  for (const char* name : {"-c", "--connections", "--io", "--http3", "--web", "--shard", "--max-error-rate", "-h"}) {
    EXPECT_NE(find(options, name), nullptr) << name;
  }
  EXPECT_EQ(find(options, "--io")->arguments, std::vector<std::string>{"ENGINE"});
  EXPECT_EQ(find(options, "-H")->arguments, std::vector<std::string>{"\"K: V\""});
  EXPECT_EQ(find(options, "--listen"), nullptr);  // pacer serve's, not the run's
  EXPECT_EQ(value_kind(*find(options, "--io")), ValueKind::kWords);
  EXPECT_EQ(value_kind(*find(options, "--web")), ValueKind::kFlag);  // [ADDR] is optional
  EXPECT_EQ(value_kind(*find(options, "--targets")), ValueKind::kFiles);
  EXPECT_EQ(value_kind(*find(options, "-c")), ValueKind::kNone);
  EXPECT_EQ(commands_of(page), (std::vector<std::string>{"serve", "demo", "merge", "cert", "report"}));
}

TEST(HelpText, EveryFixedValueSetBelongsToAnOptionOfSomeHelp) {
  std::vector<HelpOption> all;
  for (const std::string& text : {cli::usage(), cli::serve_usage(), cli::merge_usage(), cli::report_usage()}) {
    const std::vector<HelpOption> options = options_of(parse_help(text));
    all.insert(all.end(), options.begin(), options.end());
  }
  for (const ValueSet& set : value_sets()) EXPECT_NE(find(all, set.option), nullptr) << set.option;
}

TEST(ManPage, EscapesWhatRoffWouldRead) {
  EXPECT_EQ(roff_escape("--io a\\b"), "\\-\\-io a\\eb");
  EXPECT_EQ(roff_escape(".starts"), "\\&.starts");
  EXPECT_EQ(roff_escape("'quote"), "\\&'quote");
}

TEST(ManPage, PutsOptionsUnderOptionsWithTheirDefaults) {
  const std::string roff = man_page(parse_help(kSample), ManPage{"pacer-thing", "does things", "1.2.3", "", {}, {}});
  EXPECT_NE(roff.find(".TH PACER-THING 1 \"\" \"pacer 1.2.3\""), std::string::npos) << roff;
  EXPECT_NE(roff.find(".SH OPTIONS\n.TP\n\\fB\\-c\\fR, \\fB\\-\\-count\\fR \\fIN\\fR\nhow many to do; the text goes on "
                      "here. Default: 10.\n"),
            std::string::npos)
      << roff;
  EXPECT_NE(roff.find(".SH \"EXIT STATUS\""), std::string::npos) << roff;
  EXPECT_EQ(roff.find("[default]"), std::string::npos) << roff;
}

}  // namespace
}  // namespace pacer::docgen
