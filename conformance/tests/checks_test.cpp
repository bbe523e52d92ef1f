// The checking functions and the verdict rule, without MPI or an IUT: a verdict
// is earned by evidence, and every way a check can go wrong has its verdict.
#include <gtest/gtest.h>

#include "evidence.h"
#include "hccl/hccl_types.h"
#include "hcts/core/catalogue.h"
#include "litmus.h"
#include "probes.h"
#include "transfer.h"

using namespace hcts;

namespace {

const Catalogue &catalogue()
{
    static const Catalogue cat = Catalogue::parse(R"(catalogue_version: 1
clauses:
  - {id: M.1, title: t, statement: s, source: src, source_class: seed, kind: MUST, area: a}
  - {id: M.2, title: t, statement: s, source: src, source_class: seed, kind: MUST, area: a}
  - {id: P.1, title: t, statement: s, source: src, source_class: reference, kind: PROFILE, area: a, allowed: [x, y], hazard: [z]}
)",
                                                  "test");
    return cat;
}

Verdict verdict_of(const Evidence &e, const std::string &id)
{
    const ClauseEvidence *ce = e.find(id);
    return derive_verdict(id, ce != nullptr ? *ce : ClauseEvidence{}, catalogue()).verdict;
}

LaunchResult launch(int32_t rc, int32_t task_error, uint64_t elapsed_ms, uint32_t program_return = 0)
{
    LaunchResult r;
    r.rc = rc;
    r.status.task_error = task_error;
    r.status.program_return = program_return;
    r.status.elapsed_ns = elapsed_ms * 1000000ULL;
    return r;
}

} // namespace

TEST(Verdict, IsEarnedByEvidence)
{
    Evidence e({"M.1", "M.2", "P.1"});
    EXPECT_EQ(verdict_of(e, "M.1"), Verdict::Error) << "named, never checked";
    e.check("M.1", true, "");
    EXPECT_EQ(verdict_of(e, "M.1"), Verdict::Pass);
    e.unsupported("M.1", "no snapshot");
    EXPECT_EQ(verdict_of(e, "M.1"), Verdict::NotSupported) << "a check that could not run keeps it from PASS";
    e.error("M.1", "launch failed");
    EXPECT_EQ(verdict_of(e, "M.1"), Verdict::Error);
    e.check("M.1", false, "stale word");
    EXPECT_EQ(verdict_of(e, "M.1"), Verdict::Fail);
    e.profile("P.1", "x");
    EXPECT_EQ(verdict_of(e, "P.1"), Verdict::Profile);
    e.profile("P.1", "z");
    EXPECT_EQ(verdict_of(e, "P.1"), Verdict::Hazard);
    e.profile("P.1", "w");
    const auto cv = derive_verdict("P.1", *e.find("P.1"), catalogue());
    EXPECT_EQ(cv.verdict, Verdict::Hazard);
    EXPECT_NE(cv.reason.find("not among the allowed"), std::string::npos);
    EXPECT_THROW(e.check("Q.9", true, ""), std::logic_error) << "a case checks only the clauses it names";
}

TEST(Verdict, ReporterHearsFailuresAndErrors)
{
    std::vector<std::string> heard;
    Evidence e({"M.1"}, [&](std::string_view c, std::string_view k, const std::string &why) {
        heard.push_back(std::string(k) + " " + std::string(c) + " " + why);
    });
    e.check("M.1", true, "fine");
    e.check("M.1", false, "bad");
    e.error("M.1", "broken");
    EXPECT_EQ(heard, (std::vector<std::string>{"FAIL M.1 bad", "ERROR M.1 broken"}));
}

TEST(Merge, SumsRanksAndTagsReasons)
{
    Evidence r0({"M.1", "M.2", "P.1"}), r1({"M.1", "M.2", "P.1"});
    r0.check("M.1", true, "");
    r1.check("M.1", false, "word 3 stale");
    r1.check("M.1", false, "word 4 stale");
    r1.check("M.2", true, "");
    r1.profile("P.1", "y", "1 of 8");
    const auto m = merge_ranks({"M.1", "M.2", "P.1"}, {r0.to_json().dump(), r1.to_json().dump()}, catalogue());
    EXPECT_EQ(m.clauses.at("M.1").verdict, Verdict::Fail);
    EXPECT_EQ(m.clauses.at("M.1").reason, "rank 1: word 3 stale (and 1 more)");
    EXPECT_EQ(m.clauses.at("M.2").verdict, Verdict::Pass);
    EXPECT_EQ(m.clauses.at("P.1").verdict, Verdict::Profile);
    EXPECT_EQ(m.clauses.at("P.1").profile["observed"], "y");
}

TEST(Merge, WholeCaseOutcomes)
{
    Evidence r0({"M.1", "M.2"}), r1({"M.1", "M.2"});
    r0.check("M.1", false, "bad");
    r1.harness_failure("C++ exception thrown");
    auto m = merge_ranks({"M.1", "M.2"}, {r0.to_json().dump(), r1.to_json().dump()}, catalogue());
    EXPECT_EQ(m.clauses.at("M.1").verdict, Verdict::Fail) << "a failed check stays a failure";
    EXPECT_EQ(m.clauses.at("M.2").verdict, Verdict::Error);
    EXPECT_NE(m.clauses.at("M.2").reason.find("rank 1: C++ exception"), std::string::npos);

    Evidence n0({"M.1"});
    n0.case_not_supported("the IUT lacks HcommReadOnThread");
    m = merge_ranks({"M.1"}, {n0.to_json().dump(), n0.to_json().dump()}, catalogue());
    EXPECT_EQ(m.clauses.at("M.1").verdict, Verdict::NotSupported);

    Evidence p0({"M.1"});
    p0.check("M.1", true, "");
    m = merge_ranks({"M.1"}, {p0.to_json().dump(), ""}, catalogue());
    EXPECT_EQ(m.clauses.at("M.1").verdict, Verdict::Error) << "a rank sent no evidence";
}

TEST(Waits, DidNotCompleteNeedsATimeoutAfterTheTimeout)
{
    EXPECT_EQ(classify_wait(true, 0, launch(0, HCCL_E_TIMEOUT, 1001), 1000).end, WaitEnd::TimedOut);
    EXPECT_EQ(classify_wait(true, HCCL_E_TIMEOUT, launch(0, 0, 1000), 1000).end, WaitEnd::TimedOut);
    EXPECT_EQ(classify_wait(true, 0, launch(0, 0, 3), 1000).end, WaitEnd::Completed);
    EXPECT_EQ(classify_wait(true, 0, launch(0, HCCL_E_TIMEOUT, 20), 1000).end, WaitEnd::Unknown) << "too early";
    EXPECT_EQ(classify_wait(true, HCCL_E_PARA, launch(0, 0, 0), 1000).end, WaitEnd::Unknown) << "refused";
    EXPECT_EQ(classify_wait(false, 0, launch(0, 0, 0), 1000).end, WaitEnd::Unknown) << "no thread";
    EXPECT_EQ(classify_wait(true, 0, launch(HCCL_E_NOT_FOUND, 0, 0), 1000).end, WaitEnd::Unknown) << "launch failed";
    Evidence e({"M.1"});
    judge_no_completion(classify_wait(false, 0, launch(0, 0, 0), 1000), "M.1", "w", e);
    EXPECT_EQ(verdict_of(e, "M.1"), Verdict::Error) << "no thread is no evidence, never PASS";
}

TEST(Launches, TroubleIsAttributed)
{
    EXPECT_EQ(launch(0, 0, 1).trouble(), Trouble::None);
    EXPECT_EQ(launch(0, HCCL_E_TIMEOUT, 1).trouble(), Trouble::Iut);
    EXPECT_EQ(launch(HCCL_E_TIMEOUT, 0, 1).trouble(), Trouble::Iut);
    EXPECT_EQ(launch(HCCL_E_NOT_FOUND, 0, 1).trouble(), Trouble::Harness);
    EXPECT_EQ(launch(0, 0, 1, HCTS_PROG_BAD_ARGS).trouble(), Trouble::Harness);
    EXPECT_EQ(launch(0, 0, 1, HCTS_PROG_MISSING_API).trouble(), Trouble::Missing);
}

TEST(Exchange, ChecksEachClauseOnItsOwnEvidence)
{
    const std::vector<Xfer> plan{Xfer{0, 1, 4096, 0, 64, 3, 0, 0, 0, StampKey{1, 1, 0}}};
    std::vector<std::byte> good(64), poison(64);
    fill_payload(good, plan[0].key);
    fill_pattern(poison, kPoisonWord);
    Exchange ex{launch(0, 0, 1), {XferResult{}}};
    ex.x[0].host = check_payload(good, plan[0].key);
    ex.x[0].have_snapshot = true;
    ex.x[0].snap = check_payload(poison, plan[0].key);
    ex.x[0].guard_bad = 3;
    ex.x[0].guard_detail = "3 bytes changed after dst+len";
    Evidence rx({"WWN.VIS.1", "WWN.NTF.5", "WWN.NTF.6"});
    check_exchange(plan, ex, 1, {}, rx);
    EXPECT_EQ(rx.find("WWN.VIS.1")->failed, 1U) << "the snapshot right after the wait was poison";
    EXPECT_NE(rx.find("WWN.VIS.1")->first_failure.find("absent"), std::string::npos);
    EXPECT_EQ(rx.find("WWN.NTF.5")->failed, 1U);
    EXPECT_EQ(rx.find("WWN.NTF.6"), nullptr) << "the receiver does not judge the source";

    ex.x[0].have_snapshot = false;
    ex.x[0].no_snapshot = "no LocalCopy";
    ex.x[0].guard_bad = 0;
    Evidence rx2({"WWN.VIS.1", "WWN.NTF.5", "WWN.NTF.6"});
    check_exchange(plan, ex, 1, {}, rx2);
    EXPECT_EQ(derive_verdict("WWN.VIS.1", *rx2.find("WWN.VIS.1"), catalogue()).verdict, Verdict::NotSupported)
        << "without its snapshot the visibility promise is not shown";

    ex.launch = launch(HCCL_E_NOT_FOUND, 0, 0);
    Evidence rx3({"WWN.VIS.1", "WWN.NTF.5", "WWN.NTF.6"});
    check_exchange(plan, ex, 1, {}, rx3);
    EXPECT_EQ(rx3.find("WWN.VIS.1")->errors, 1U) << "the adapter's failure is the harness's, not the IUT's";

    ex.x[0].src_bad = 2;
    ex.x[0].wwn_rc = HCCL_E_PARA;
    Evidence tx({"WWN.VIS.1", "WWN.NTF.5", "WWN.NTF.6"});
    check_exchange(plan, ex, 0, {}, tx);
    EXPECT_EQ(tx.find("WWN.NTF.6")->failed, 1U);
    EXPECT_EQ(tx.find("WWN.VIS.1")->failed, 1U);
}

TEST(Litmus, NoRepetitionIsNoEvidence)
{
    EXPECT_EQ(litmus_entry("L", "s", "c", {{"new", 0}, {"stale", 0}}, {"stale"})["verdict"], "ERROR");
    EXPECT_EQ(litmus_entry("L", "s", "c", {{"new", 4}, {"stale", 0}}, {"stale"})["verdict"], "PASS");
    EXPECT_EQ(litmus_entry("L", "s", "c", {{"new", 4}, {"stale", 1}}, {"stale"})["verdict"], "FAIL");
    EXPECT_EQ(profile_entry("L", "s", "c", {{"new", 4}, {"stale", 1}}, {"stale"})["verdict"], "PROFILE");
    EXPECT_EQ(sum_on_root({{"new", 3}}).at("new"), 3U) << "a world of one rank without a harness";
}
