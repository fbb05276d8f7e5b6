// --config FILE and PACER_* as layers in front of the scanner: precedence
// command line > environment > file option by option, a misspelled key names
// the key and its line, a flag's env value must be a boolean, unknown PACER_
// variables are not options, and errors about a layered value say where it came from.
#include "cli/config_layers.h"
#include "cli/settings_toml.h"

#include <gtest/gtest.h>

#include <array>
#include <fstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "cli/cli.h"

namespace pacer::cli {
namespace {

constexpr std::array<OptionSpec, 6> kSpecs{{
    {1, 'c', "connections", true},
    {2, 'd', "duration", true},
    {3, 'H', "header", true},
    {4, '\0', "latency", false},
    {5, '\0', "max-error-rate", true},
    {6, 'v', "version", false},
}};

class ConfigFile {
 public:
  explicit ConfigFile(const std::string& text) {
    char name[] = "/tmp/pacer-config-XXXXXX.toml";
    const int fd = mkstemps(name, 5);
    EXPECT_GE(fd, 0);
    close(fd);
    path_ = name;
    std::ofstream(path_) << text;
  }
  ~ConfigFile() { unlink(path_.c_str()); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

std::vector<std::string> layered(const std::vector<std::string>& args, const std::vector<std::string>& env) {
  auto out = apply_config_layers(args, env, kSpecs);
  EXPECT_TRUE(out) << (out ? "" : out.error().message);
  return out ? out->args : std::vector<std::string>{};
}

TEST(ConfigLayers, CommandLineBeatsEnvironmentBeatsFile) {
  ConfigFile file("connections = 10\nduration = \"30s\"\nmax_error_rate = 0.5\nlatency = true\n");
  const auto args = layered({"--config", file.path(), "-c", "99", "http://127.0.0.1/"},
                            {"PACER_DURATION=5s", "PACER_CONNECTIONS=50"});
  EXPECT_EQ(args, (std::vector<std::string>{"--max-error-rate=0.5", "--latency", "--duration=5s", "-c", "99",
                                            "http://127.0.0.1/"}));
}

TEST(ConfigLayers, AListGivesTheOptionOncePerElementAndTheCommandLineReplacesTheList) {
  ConfigFile file("header = [\"A: 1\", \"B: 2\"]\n");
  EXPECT_EQ(layered({"--config=" + file.path()}, {}), (std::vector<std::string>{"--header=A: 1", "--header=B: 2"}));
  EXPECT_EQ(layered({"--config=" + file.path(), "-H", "C: 3"}, {}), (std::vector<std::string>{"-H", "C: 3"}));
}

TEST(ConfigLayers, AMisspelledKeyNamesTheKeyAndItsLine) {
  ConfigFile file("connections = 10\n\nconections = 5\n");
  auto out = apply_config_layers(std::vector<std::string>{"--config", file.path()}, {}, kSpecs);
  ASSERT_FALSE(out);
  EXPECT_EQ(out.error().kind, ErrorKind::kBadInput);
  EXPECT_NE(out.error().message.find(file.path() + ":3: unknown key 'conections'"), std::string::npos) << out.error().message;
}

TEST(ConfigLayers, ATomlSyntaxErrorNamesItsLine) {
  ConfigFile file("connections = 10\nduration = \n");
  auto out = apply_config_layers(std::vector<std::string>{"--config", file.path()}, {}, kSpecs);
  ASSERT_FALSE(out);
  EXPECT_NE(out.error().message.find(file.path() + ":2:"), std::string::npos) << out.error().message;
}

TEST(ConfigLayers, AConfigThatIsNotARegularFileIsRefused) {
  for (const char* path : {"/tmp", "/dev/zero"}) {
    auto out = apply_config_layers(std::vector<std::string>{"--config", path}, {}, kSpecs);
    ASSERT_FALSE(out) << path;
    EXPECT_EQ(out.error().kind, ErrorKind::kBadInput);
    EXPECT_NE(out.error().message.find(std::string("--config ") + path + ": is "), std::string::npos)
        << out.error().message;
  }
}

TEST(ConfigLayers, AFlagTakesABooleanAndAValueOptionDoesNot) {
  ConfigFile flag("latency = \"yes\"\n");
  EXPECT_FALSE(apply_config_layers(std::vector<std::string>{"--config", flag.path()}, {}, kSpecs));
  ConfigFile value("duration = true\n");
  EXPECT_FALSE(apply_config_layers(std::vector<std::string>{"--config", value.path()}, {}, kSpecs));
  EXPECT_EQ(layered({}, {"PACER_LATENCY=0"}), std::vector<std::string>{});
  EXPECT_EQ(layered({}, {"PACER_LATENCY=TRUE"}), std::vector<std::string>{"--latency"});
  auto bad = apply_config_layers(std::vector<std::string>{}, std::vector<std::string>{"PACER_LATENCY=sometimes"}, kSpecs);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("PACER_LATENCY"), std::string::npos);
}

TEST(ConfigLayers, VariablesThatNameNoOptionAreLeftAlone) {
  EXPECT_EQ(layered({}, {"PACER_BIN=/x/pacer", "PACER_VERSION=1", "PATH=/bin"}), std::vector<std::string>{});
}

TEST(ConfigLayers, AUrlFromTheFileIsUsedOnlyWithoutOneOnTheCommandLine) {
  ConfigFile file("url = \"http://127.0.0.1:1/\"\n");
  EXPECT_EQ(layered({"--config", file.path()}, {}), std::vector<std::string>{"http://127.0.0.1:1/"});
  EXPECT_EQ(layered({"--config", file.path(), "http://127.0.0.1:2/"}, {}), std::vector<std::string>{"http://127.0.0.1:2/"});
}

TEST(ConfigLayers, TheDemoTakesNoUrlFromTheFileOrTheEnvironment) {
  ConfigFile file("url = \"http://127.0.0.1:1/\"\nconnections = 2\n");
  auto out = apply_config_layers(std::vector<std::string>{"--config", file.path()},
                                 std::vector<std::string>{"PACER_URL=http://127.0.0.1:2/"}, kSpecs, false);
  ASSERT_TRUE(out);
  EXPECT_EQ(out->args, std::vector<std::string>{"--connections=2"});
}

TEST(ConfigLayers, ASeparatedValueThatLooksLikeConfigIsNotTaken) {
  EXPECT_EQ(layered({"-H", "--config", "http://x/"}, {}), (std::vector<std::string>{"-H", "--config", "http://x/"}));
}

TEST(ConfigLayers, PrintConfigSaysWhereEachSettingCameFrom) {
  ConfigFile file("duration = \"30s\"\n");
  auto out = apply_config_layers(std::vector<std::string>{"--print-config", "--config", file.path(), "-c", "3"},
                                 std::vector<std::string>{"PACER_LATENCY=1"}, kSpecs);
  ASSERT_TRUE(out);
  EXPECT_TRUE(out->print_config);
  const std::string text = render_settings(*out);
  EXPECT_NE(text.find("duration = \"30s\"  # " + file.path() + ":1"), std::string::npos) << text;
  EXPECT_NE(text.find("latency = true  # environment PACER_LATENCY"), std::string::npos) << text;
  EXPECT_NE(text.find("connections = 3  # command line"), std::string::npos) << text;
}

// Issue 43 (5): a repeated option is one TOML array, a number a number; the text read
// back as a --config file gives the same settings, printed the same.
TEST(ConfigLayers, PrintConfigReadsBackToTheSameSettings) {
  auto out = apply_config_layers(std::vector<std::string>{"--print-config", "-H", "A: 1", "-H", "B: \"2\"", "-c", "4",
                                                          "--latency", "-d", "0042", "http://127.0.0.1:1/"},
                                 std::vector<std::string>{}, kSpecs);
  ASSERT_TRUE(out);
  const std::string text = render_settings(*out);
  EXPECT_NE(text.find("header = [\"A: 1\", \"B: \\\"2\\\"\"]  # command line\n"), std::string::npos) << text;
  EXPECT_NE(text.find("connections = 4  # command line\n"), std::string::npos) << text;
  EXPECT_NE(text.find("duration = \"0042\"  # command line\n"), std::string::npos) << text;  // not a TOML integer
  ConfigFile file(text);
  auto again = apply_config_layers(std::vector<std::string>{"--config", file.path()}, std::vector<std::string>{}, kSpecs);
  ASSERT_TRUE(again) << again.error().message;
  ASSERT_EQ(again->origins.size(), out->origins.size());
  for (std::size_t i = 0; i < out->origins.size(); ++i) {
    EXPECT_EQ(again->origins[i].name, out->origins[i].name);
    EXPECT_EQ(again->origins[i].value, out->origins[i].value);
  }
  const auto settings = [](const std::string& printed) {  // without the comments, which say where each came from
    std::string lines;
    for (std::size_t at = 0; at < printed.size();) {
      const std::size_t end = printed.find('\n', at);
      const std::string line = printed.substr(at, end - at);
      lines += line.substr(0, line.find("  # ")) + "\n";
      at = end + 1;
    }
    return lines;
  };
  EXPECT_EQ(settings(render_settings(*again)), settings(text));
}

// Issue 44 (9): a file's or a variable's ESC, BEL or U+202E is a TOML escape, never raw.
TEST(ConfigLayers, PrintConfigEscapesControlCharacters) {
  ConfigFile file("header = \"X-A: a\\u001Bb\\u0007c\\u202Ed\"\n");
  auto out = apply_config_layers(std::vector<std::string>{"--print-config", "--config", file.path()},
                                 std::vector<std::string>{"PACER_DURATION=ua\x1b[2J\xff"}, kSpecs);
  ASSERT_TRUE(out);
  const std::string text = render_settings(*out);
  EXPECT_NE(text.find("header = \"X-A: a\\u001Bb\\u0007c\\u202Ed\""), std::string::npos) << text;
  EXPECT_NE(text.find("\"ua\\u001B[2J\\uFFFD\""), std::string::npos) << text;
  EXPECT_EQ(text.find('\x1b'), std::string::npos);
  EXPECT_EQ(text.find('\x07'), std::string::npos);
  EXPECT_EQ(text.find("\u202E"), std::string::npos);
}

TEST(ConfigLayers, TheRunParserNamesTheVariableOfABadValue) {
  setenv("PACER_CONNECTIONS", "0", 1);
  auto parsed = parse({"http://127.0.0.1:1/"}, -1);
  unsetenv("PACER_CONNECTIONS");
  ASSERT_FALSE(parsed);
  EXPECT_EQ(parsed.error().kind, ErrorKind::kBadArgument);
  EXPECT_TRUE(parsed.error().message.starts_with("environment PACER_CONNECTIONS (connections): --connections:"))
      << parsed.error().message;
}

TEST(ConfigLayers, TheRunParserNamesTheFileLineOfABadValue) {
  ConfigFile file("threads = 2\nduration = \"soon\"\n");
  auto parsed = parse({"--config", file.path(), "http://127.0.0.1:1/"}, -1);
  ASSERT_FALSE(parsed);
  EXPECT_TRUE(parsed.error().message.starts_with(file.path() + ":2 (duration): --duration")) << parsed.error().message;
  auto good = parse({"--config", file.path(), "-d", "1s", "http://127.0.0.1:1/"}, -1);
  ASSERT_TRUE(good) << good.error().message;
  EXPECT_EQ(good->run.threads, 2);
}

TEST(ConfigLayers, EnvNameIsTheLongNameInUpperCase) { EXPECT_EQ(env_name("max-error-rate"), "PACER_MAX_ERROR_RATE"); }

}  // namespace
}  // namespace pacer::cli
