// Submission bundles: the tar format round-trips and is deterministic, verify
// accepts a fresh bundle, and rejects any single changed byte and every incomplete run.
#include <functional>
#include <random>
#include <string>

#include <gtest/gtest.h>

#include "bundle.h"
#include "renderers.h"
#include "results_io.h"
#include "test_support.h"
#include "ustar.h"

namespace {

using namespace hcts::report;

using hcts::report::test::fixture;
using hcts::report::test::test_seed;

std::string bundle_of(Run run)
{
    std::vector<Run> runs{std::move(run)};
    prepare_runs(runs, nullptr);
    const RenderInfo info{"2026-11-29T09:00:00Z", ""};
    return make_bundle(runs[0],
                       {{"report/report.html", render_html(runs, info)},
                        {"report/summary.md", render_markdown(runs, info)},
                        {"report/junit.xml", render_junit(runs, info)}},
                       info.generated);
}

Run run_with(const std::function<void(nlohmann::json &)> &edit)
{
    auto run = load_run(fixture("failures.json"));
    edit(run.doc);
    run.bytes = run.doc.dump(2);
    return run;
}

TEST(Tar, RoundTrip)
{
    const std::vector<TarMember> members = {{"a.txt", "hello"}, {"dir/b.bin", std::string(1024, '\0')}, {"empty", ""}};
    const auto archive = write_tar(members, 1764403200);
    EXPECT_EQ(archive.size() % 512, 0U);
    const auto back = read_tar(archive);
    ASSERT_EQ(back.size(), 3U);
    for (std::size_t i = 0; i < 3; ++i) {
        EXPECT_EQ(back[i].name, members[i].name);
        EXPECT_EQ(back[i].data, members[i].data);
    }
}

TEST(Tar, RejectsTruncationAndTrailingData)
{
    const auto archive = write_tar({{"a", "x"}}, 0);
    EXPECT_THROW(read_tar(archive.substr(0, archive.size() - 512)), std::runtime_error);
    EXPECT_THROW(read_tar(archive.substr(0, 512)), std::runtime_error);
    EXPECT_THROW(read_tar(archive + std::string(511, '\0') + "x"), std::runtime_error);
    // ustar holds a name of 100 bytes without a '/' (the old writer stopped at 99), not 101.
    EXPECT_EQ(read_tar(write_tar({{std::string(100, 'n'), ""}}, 0)).at(0).name, std::string(100, 'n'));
    EXPECT_THROW(write_tar({{std::string(101, 'n'), ""}}, 0), std::runtime_error);
    EXPECT_THROW(write_tar({{"", ""}}, 0), std::runtime_error);
    EXPECT_THROW(write_tar({{"a", ""}, {"a", ""}}, 0), std::runtime_error);
    EXPECT_THROW(write_tar({{"a", ""}}, -1), std::runtime_error);
}

std::string what_read_tar_says(const std::string &archive)
{
    try {
        read_tar(archive);
    } catch (const std::runtime_error &e) {
        return e.what();
    }
    return "accepted";
}

// libarchive reads these without complaint; the canonical re-write catches them.
TEST(Tar, RejectsWhatALenientReaderAccepts)
{
    const auto archive = write_tar({{"a", "x"}}, 0);
    EXPECT_EQ(what_read_tar_says(archive + std::string(512, '\0')),
              "tar: at byte 2048: data after the end-of-archive marker");
    EXPECT_EQ(what_read_tar_says(archive.substr(0, archive.size() - 512)),
              "tar: at byte 1536: the archive ends early, in the end-of-archive marker");
    auto padding = archive;
    padding[600] = 'y';
    EXPECT_EQ(
        what_read_tar_says(padding),
        "tar: at byte 600: the archive is not in the canonical form hcts-report writes: a byte differs in the padding "
        "after member 'a'");
    EXPECT_EQ(what_read_tar_says(""),
              "tar: at byte 0: the archive is empty; a ustar archive has at least its two end blocks");
}

// The same members and mtime give the same bytes: fixed header fields, no 10 KiB record padding.
TEST(Tar, IsDeterministic)
{
    const std::vector<TarMember> members = {{"b", "2"}, {"a", "1"}};
    const auto archive = write_tar(members, 1764403200);
    EXPECT_EQ(archive, write_tar(members, 1764403200));
    EXPECT_EQ(archive.size(), 6U * 512);               // two headers, two data blocks, the two end blocks
    EXPECT_EQ(archive.substr(0, 1), "b");              // in the order given, not sorted
    EXPECT_EQ(archive.substr(108, 6), "000000");       // uid
    EXPECT_EQ(archive.substr(116, 6), "000000");       // gid
    EXPECT_EQ(archive.substr(136, 11), "15112524000"); // mtime 1764403200, octal
    EXPECT_EQ(archive.substr(257, 6), std::string("ustar\0", 6));
}

// The members' mtime is SOURCE_DATE_EPOCH, or 0: the same run gives the same bundle.
TEST(Bundle, SameInputsGiveTheSameBytes)
{
    const auto run = load_run(fixture("pass.json"));
    ::unsetenv("SOURCE_DATE_EPOCH");
    const auto plain = bundle_of(run);
    EXPECT_EQ(plain, bundle_of(run));
    EXPECT_EQ(plain.substr(136, 11), "00000000000");
    ::setenv("SOURCE_DATE_EPOCH", "1764403200", 1);
    const auto dated = bundle_of(run);
    EXPECT_EQ(dated.substr(136, 11), "15112524000");
    EXPECT_TRUE(verify_bundle(dated).ok);
    ::setenv("SOURCE_DATE_EPOCH", "yesterday", 1);
    try {
        bundle_of(run);
        ADD_FAILURE() << "SOURCE_DATE_EPOCH=yesterday was accepted";
    } catch (const std::runtime_error &e) {
        EXPECT_EQ(
            std::string(e.what()),
            "SOURCE_DATE_EPOCH is 'yesterday'; allowed: a whole number of seconds since 1970-01-01 UTC, 0 or more");
    }
    ::unsetenv("SOURCE_DATE_EPOCH");
}

TEST(Bundle, FreshBundleVerifies)
{
    const auto archive = bundle_of(load_run(fixture("failures.json")));
    const auto result = verify_bundle(archive);
    EXPECT_TRUE(result.ok) << result.reason;
    EXPECT_EQ(result.members, 7U); // bundle.json, results.json, environment.json, 3 report files, SHA256SUMS
    EXPECT_EQ(result.mandatory, 8U);
    EXPECT_EQ(result.gate, "fail");
    // results.json is stored byte for byte as the run wrote it.
    const auto members = read_tar(archive);
    EXPECT_EQ(members[1].name, "results.json");
    EXPECT_EQ(members[1].data, read_file(fixture("failures.json")));
    EXPECT_EQ(members.back().name, "SHA256SUMS");
}

TEST(Bundle, OneChangedByteInAMemberIsRejectedWithTheReason)
{
    auto archive = bundle_of(load_run(fixture("pass.json")));
    const auto at = archive.find("\"statement\""); // only results.json has statements
    ASSERT_NE(at, std::string::npos);
    archive[at + 5] = 'X';
    const auto result = verify_bundle(archive);
    EXPECT_FALSE(result.ok);
    EXPECT_EQ(result.reason.rfind("checksum mismatch for 'results.json': SHA256SUMS says ", 0), 0U) << result.reason;
}

// Any single byte, wherever it is (headers, data, padding, end marker), is caught.
TEST(Bundle, EverySingleByteChangeIsRejected)
{
    const auto archive = bundle_of(load_run(fixture("pass.json")));
    std::mt19937 rng(test_seed(20261129));
    std::vector<std::size_t> positions = {0,
                                          100,
                                          124,
                                          148,
                                          150,
                                          155,
                                          156,
                                          257,
                                          511,
                                          512,
                                          archive.size() - 1,
                                          archive.size() - 1024,
                                          archive.size() - 513};
    std::uniform_int_distribution<std::size_t> any(0, archive.size() - 1);
    for (int i = 0; i < 300; ++i)
        positions.push_back(any(rng));
    for (const auto pos : positions) {
        auto tampered = archive;
        tampered[pos] = static_cast<char>(tampered[pos] ^ (1 + rng() % 255));
        const auto result = verify_bundle(tampered);
        EXPECT_FALSE(result.ok) << "byte " << pos << " of " << archive.size() << " changed, still accepted";
    }
}

TEST(Bundle, IncompleteRunsAreRejected)
{
    auto aborted = verify_bundle(bundle_of(run_with([](nlohmann::json &d) { d["run"]["status"] = "aborted"; })));
    EXPECT_FALSE(aborted.ok);
    EXPECT_EQ(aborted.reason, "the run is 'aborted', not 'complete': the mandatory clause set did not finish");

    auto no_verdict = verify_bundle(bundle_of(run_with([](nlohmann::json &d) {
        d["clauses"][2]["verdict"] = nullptr;
        d["clauses"][2]["cases"] = nlohmann::json::array();
    })));
    EXPECT_FALSE(no_verdict.ok);
    EXPECT_EQ(no_verdict.reason, "MUST clause WWN.IDX.1 has no verdict: it did not run");

    auto lost_case = verify_bundle(bundle_of(run_with([](nlohmann::json &d) { d["cases"].erase(0); })));
    EXPECT_FALSE(lost_case.ok);
    EXPECT_EQ(lost_case.reason, "MUST clause WWN.PTR.1 names case \"InputChecks.NullDst\", which has no result");

    auto filtered = verify_bundle(bundle_of(run_with([](nlohmann::json &d) {
        d["summary"] = {{"not_run", {"WWN.NTF.1", "WWN.ORD.1"}}};
    })));
    EXPECT_FALSE(filtered.ok);
    EXPECT_EQ(
        filtered.reason,
        "summary.not_run lists 2 clause(s) no case decided (first: WWN.NTF.1): the run was filtered or cut short");

    auto nothing = verify_bundle(bundle_of(load_run(fixture("not_supported.json"))));
    EXPECT_TRUE(nothing.ok) << nothing.reason; // ran, all NOT_SUPPORTED: complete, the gate (not verify) fails it
}

TEST(Bundle, MissingOrExtraMembersAreRejected)
{
    const auto archive = bundle_of(load_run(fixture("pass.json")));
    auto members = read_tar(archive);
    auto without = members;
    without.erase(without.begin() + 2); // environment.json
    EXPECT_EQ(verify_bundle(write_tar(without, 0)).reason, "member 'environment.json' is missing");
    auto extra = members;
    extra.insert(extra.end() - 1, {"report/extra.txt", "not listed"});
    EXPECT_EQ(verify_bundle(write_tar(extra, 0)).reason, "member 'report/extra.txt' is not in SHA256SUMS");
    EXPECT_EQ(verify_bundle("").reason.rfind("the archive is damaged: tar: ", 0), 0U);
}

} // namespace
