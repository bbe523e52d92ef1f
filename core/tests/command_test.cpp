#include "hcts/core/command.h"

#include <gtest/gtest.h>

namespace {

TEST(ShellQuote, PlainWordsStayAndOthersAreQuoted)
{
    EXPECT_EQ(hcts::shell_quote("build/bin-1.x"), "build/bin-1.x");
    EXPECT_EQ(hcts::shell_quote(""), "''");
    EXPECT_EQ(hcts::shell_quote("a b"), "'a b'");
    EXPECT_EQ(hcts::shell_quote("it's"), "'it'\\''s'");
}

TEST(CaptureCommand, ReturnsWhatTheChildPrintedAndHowItEnded)
{
    const hcts::CommandOutput ok = hcts::capture_command("printf 'one\\ntwo'");
    EXPECT_TRUE(ok.ok());
    EXPECT_EQ(ok.text, "one\ntwo");
    const hcts::CommandOutput failed = hcts::capture_command("echo partial; exit 3");
    EXPECT_FALSE(failed.ok());
    EXPECT_NE(failed.status, 0);
    EXPECT_EQ(failed.text, "partial\n");
}

TEST(CaptureCommand, AQuotedWordReachesTheChildUnchanged)
{
    const std::string word = "it's a $HOME `x`";
    EXPECT_EQ(hcts::capture_command("printf %s " + hcts::shell_quote(word)).text, word);
}

} // namespace
