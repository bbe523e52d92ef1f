// RunSpec: the words of `hcts run` parsed, printed and parsed back.
#include <gtest/gtest.h>

#include <stdexcept>

#include "hcts/core/run_spec.h"

namespace hcts {
namespace {

RunSpec parsed(std::vector<std::string> words, std::string command = "./hcts")
{
    return parse_run_spec(words, std::move(command));
}

// What parse_run_spec refused with, or "" when it accepted.
std::string refusal(std::vector<std::string> words)
{
    try {
        (void)parse_run_spec(words);
        return "";
    } catch (const std::invalid_argument &e) {
        return e.what();
    }
}

TEST(RunSpec, DefaultsFromNoWords)
{
    const RunSpec s = parsed({});
    EXPECT_EQ(s, RunSpec{});
    EXPECT_TRUE(run_spec_words(s).empty());
    EXPECT_EQ(run_command_line(s), "./hcts run");
    EXPECT_EQ(run_configurations(s), (std::vector<std::string>{"plain", "segment", "adversarial", "peers"}));
}

TEST(RunSpec, EveryOptionRoundTrips)
{
    const std::vector<std::string> words = {"--iut",
                                            "/opt/my lib/libhcomm.so",
                                            "--adapter",
                                            "a.so",
                                            "--expectations",
                                            "e.yaml",
                                            "--results",
                                            "r/x.json",
                                            "--reports",
                                            "out",
                                            "--np",
                                            "4",
                                            "--nodes",
                                            "2",
                                            "--full",
                                            "--configs",
                                            "segment,plain",
                                            "--segment-size",
                                            "4096",
                                            "--jobs",
                                            "1",
                                            "--repeat",
                                            "32",
                                            "--adversarial",
                                            "--seed",
                                            "18446744073709551615",
                                            "--gate",
                                            "strict",
                                            "--no-peek",
                                            "--no-properties",
                                            "--property-cases",
                                            "7",
                                            "--",
                                            "--gtest_filter=Visibility.*:Notify.*",
                                            "--gtest_repeat=2"};
    const RunSpec s = parsed(words, "/usr/local/bin/hcts");
    EXPECT_EQ(s.iut, "/opt/my lib/libhcomm.so");
    EXPECT_EQ(s.ranks, 4u);
    EXPECT_EQ(s.nodes, 2u);
    EXPECT_EQ(s.scope, RunScope::Full);
    EXPECT_EQ(s.configurations, (std::vector<std::string>{"segment", "plain"}));
    EXPECT_EQ(s.seed, UINT64_MAX);
    EXPECT_EQ(s.gate, RunGate::Strict);
    EXPECT_FALSE(s.properties);
    EXPECT_EQ(s.gtest_args, (std::vector<std::string>{"--gtest_filter=Visibility.*:Notify.*", "--gtest_repeat=2"}));
    EXPECT_EQ(parsed(run_spec_words(s), s.command), s);
    EXPECT_EQ(run_configurations(s), s.configurations);
}

TEST(RunSpec, CommandLineIsQuotedForTheShell)
{
    RunSpec s;
    s.command = "/home/a user/hcts";
    s.iut = "/tmp/it's here.so";
    s.gtest_args = {"--gtest_filter=A.*"};
    EXPECT_EQ(run_command_line(s), "'/home/a user/hcts' run --iut '/tmp/it'\\''s here.so' -- '--gtest_filter=A.*'");
}

TEST(RunSpec, LastOccurrenceWinsAsInTheDriver)
{
    EXPECT_EQ(parsed({"--np", "3", "--np", "5"}).ranks, 5u);
    EXPECT_EQ(parsed({"--quick"}).scope, RunScope::Quick);
    EXPECT_EQ(run_configurations(parsed({"--quick"})), std::vector<std::string>{"plain"});
}

TEST(RunSpec, BadWordsAreRefusedWithTheValueAndWhatIsAllowed)
{
    EXPECT_NE(refusal({"--np", "1"}).find("2 or more, got '1'"), std::string::npos) << refusal({"--np", "1"});
    EXPECT_NE(refusal({"--seed", "-3"}).find("got '-3'"), std::string::npos);
    EXPECT_NE(refusal({"--seed", "18446744073709551616"}).find("below 2^64"), std::string::npos);
    EXPECT_NE(refusal({"--jobs", "3"}).find("1 or 2"), std::string::npos);
    EXPECT_NE(refusal({"--nodes", "0"}).find("positive"), std::string::npos);
    EXPECT_NE(refusal({"--segment-size", "4k"}).find("got '4k'"), std::string::npos);
    EXPECT_NE(refusal({"--gate", "lenient"}).find("default or strict, got 'lenient'"), std::string::npos);
    EXPECT_NE(refusal({"--configs", "plain,fast"}).find("unknown configuration 'fast'"), std::string::npos);
    EXPECT_NE(refusal({"--configs", "plain,plain"}).find("twice"), std::string::npos);
    EXPECT_NE(refusal({"--quick", "--full"}).find("exclude"), std::string::npos) << refusal({"--quick", "--full"});
    EXPECT_NE(refusal({"--hostfile", "h", "--nodes", "2"}).find("exclude each other"), std::string::npos);
    EXPECT_NE(refusal({"--fast"}).find("--fast"), std::string::npos);
    EXPECT_NE(refusal({"plain"}).find("plain"), std::string::npos); // a stray word before "--"
    EXPECT_EQ(refusal({"--", "--fast"}), "");                       // after "--" it is GoogleTest's
}

TEST(RunSpec, InvokedCommandFollowsTheDriver)
{
    ::unsetenv("HCTS_COMMAND");
    EXPECT_EQ(invoked_command(), "./hcts");
    ::setenv("HCTS_COMMAND", "hcts", 1);
    EXPECT_EQ(invoked_command(), "hcts");
    ::unsetenv("HCTS_COMMAND");
}

} // namespace
} // namespace hcts
