// The one library loader, the one adapter loader (every known ABI version) and
// the one device program, against stand-ins.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <string>

#include "hcts/core/adapter.h"
#include "hcts/core/library.h"
#include "hcts/core/results.h"
#include "hcts_programs.h"

using namespace hcts;

namespace {

const std::string kDir = HCTS_CORE_TEST_LIB;

Library &fake_iut()
{
    static std::unique_ptr<Library> lib = Library::open(kDir + "/libhcts_fake_iut.so");
    return *lib;
}

std::string open_error(const std::string &adapter)
{
    try {
        (void)Adapter::open(kDir + "/" + adapter, fake_iut(), {HCTS_PROGRAMS_LIB, 0, 2});
    } catch (const std::runtime_error &e) {
        return e.what();
    }
    return "(opened)";
}

template <typename F>
F fn(const std::string &lib, const char *name)
{
    void *h = dlopen((kDir + "/" + lib).c_str(), RTLD_NOW | RTLD_NOLOAD);
    return h != nullptr ? reinterpret_cast<F>(dlsym(h, name)) : nullptr;
}

} // namespace

TEST(Library, ResolvesWhatIsThereAndListsTheRest)
{
    Library &lib = fake_iut();
    EXPECT_NE(lib.api().HcommWriteOnThread, nullptr);
    EXPECT_EQ(lib.api().HcommWriteWithNotifyOnThread, nullptr);
    EXPECT_TRUE(lib.has("HcommWriteOnThread"));
    EXPECT_FALSE(lib.has("HcclCommInitRootInfo"));
    EXPECT_NE(std::find(lib.missing().begin(), lib.missing().end(), "HcommWriteWithNotifyOnThread"),
              lib.missing().end());
    EXPECT_EQ(lib.sha256().size(), 64U);
    EXPECT_NE(lib.symbol("fake_iut_writes"), nullptr);
}

TEST(Library, NamesAnUnloadablePath)
{
    try {
        (void)Library::open("/nonexistent/libhcomm.so");
        FAIL() << "opened a missing file";
    } catch (const std::runtime_error &e) {
        EXPECT_NE(std::string(e.what()).find("'/nonexistent/libhcomm.so'"), std::string::npos) << e.what();
    }
}

TEST(Adapter, VersionOneIsAdaptedAndFinished)
{
    {
        auto ad = Adapter::open(kDir + "/libhcts_fake_adapter_v1.so", fake_iut(), {HCTS_PROGRAMS_LIB, 0, 2});
        EXPECT_EQ(ad->abi_version(), 1U);
        EXPECT_EQ(ad->name(), "fake-v1");
        EXPECT_EQ(ad->product(), "atlas350");
        EXPECT_TRUE(ad->multi_rank_per_process());
        EXPECT_FALSE(ad->can_peek());
        EXPECT_FALSE(ad->peek_notify(nullptr, 1, 0).has_value());
        EXPECT_EQ(ad->segment_size(nullptr, 1), 0U) << "absent in version 1";
        EXPECT_FALSE(ad->iut_version());
        EXPECT_EQ(fn<int32_t (*)()>("libhcts_fake_adapter_v1.so", "fake_adapter_init_calls")(), 1);
        EXPECT_EQ(fn<uint32_t (*)()>("libhcts_fake_adapter_v1.so", "fake_adapter_init_version")(), 1U);
        // The adapter reaches the IUT's symbols through the suite.
        EXPECT_EQ(fn<void *(*)(const char *)>("libhcts_fake_adapter_v1.so", "fake_adapter_resolve")("fake_iut_writes"),
                  fake_iut().symbol("fake_iut_writes"));
    }
    EXPECT_EQ(fn<int32_t (*)()>("libhcts_fake_adapter_v1.so", "fake_adapter_fini_calls")(), 1);
}

TEST(Adapter, VersionTwoIsPreferredAndReadWhole)
{
    auto ad = Adapter::open(kDir + "/libhcts_fake_adapter_v2.so", fake_iut(), {HCTS_PROGRAMS_LIB, 1, 2});
    EXPECT_EQ(ad->abi_version(), 2U);
    EXPECT_EQ(ad->segment_size(nullptr, 1), 4096U);
    EXPECT_EQ(ad->iut_version(), "fake 1.0");
    std::byte a[4]{std::byte{1}, std::byte{2}, std::byte{3}, std::byte{4}}, b[4]{};
    ad->to_host(b, a, 4);
    EXPECT_EQ(b[3], std::byte{4});
}

TEST(Adapter, BrokenAdaptersAreRefusedWithTheReason)
{
    EXPECT_NE(open_error("libhcts_fake_adapter_bad_version.so").find("returned version 7"), std::string::npos);
    EXPECT_NE(open_error("libhcts_fake_adapter_no_entry.so").find("knows adapter versions 1 and 2"), std::string::npos);
    EXPECT_NE(open_error("libhcts_fake_adapter_init_fails.so").find("failed to initialise: HCCL_E_UNAVAIL"),
              std::string::npos);
    EXPECT_EQ(fn<int32_t (*)()>("libhcts_fake_adapter_init_fails.so", "fake_adapter_fini_calls")(), 0)
        << "fini after a failed init";
}

// The device program binds to the IUT loaded globally before it, and an absent
// call is an observation, not a crash.
TEST(Programs, ScriptRunsAgainstTheLoadedIut)
{
    (void)fake_iut();
    void *h = dlopen(HCTS_PROGRAMS_LIB, RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(h, nullptr) << dlerror();
    auto ops = reinterpret_cast<uint32_t (*)(void *)>(dlsym(h, "hcts_prog_ops"));
    ASSERT_NE(ops, nullptr);
    auto block = std::make_unique<hcts_prog_ops_v2>();
    *block = {};
    block->version = HCTS_PROG_OPS_V2;
    block->size = sizeof(hcts_prog_ops_v2);
    block->op_count = 5;
    block->ops[0] = hcts_op{HCTS_OP_WRITE, 0, 1, 1, 0, 0, 10, 0, 0, 0, 0, 0, 0, 0};
    block->ops[1] = hcts_op{HCTS_OP_WWN, 0, 1, 1, 0, 0, 10, 0, 0, 0, 0, 0, 0, 0};
    block->ops[2] = hcts_op{HCTS_OP_RECORD, 5, 1, 1, 0, 0, 0, 0, 0, HCTS_OP_F_IF_PREV_OK, 0, 0, 0, 0};
    block->ops[3] = hcts_op{HCTS_OP_RECORD, 6, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    block->ops[4] = hcts_op{99, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    EXPECT_EQ(ops(block.get()), HCTS_PROG_MISSING_API);
    EXPECT_EQ(block->ops[0].rc, 10 % 7);
    EXPECT_EQ(block->ops[1].rc, HCTS_OP_RC_MISSING);
    EXPECT_EQ(block->ops[2].rc, HCTS_OP_RC_SKIPPED);
    EXPECT_EQ(block->ops[3].rc, 6);
    EXPECT_EQ(block->ops[4].rc, HCTS_OP_RC_UNKNOWN_KIND);
    EXPECT_EQ(block->calls_made, 5U);

    block->version = 1; // the retired block with function pointers
    EXPECT_EQ(ops(block.get()), HCTS_PROG_BAD_ARGS);
    block->version = HCTS_PROG_OPS_V2;
    block->size = sizeof(hcts_prog_ops_v2) - 8;
    EXPECT_EQ(ops(block.get()), HCTS_PROG_BAD_ARGS);
}

// The results writer's iut and adapter sections, as it has always written them
// (from the typed model, results_model.h): unknown facts null, the rest as loaded.
TEST(Adapter, TheResultsWriterRecordsTheIutAndTheAdapter)
{
    auto ad = Adapter::open(kDir + "/libhcts_fake_adapter_v2.so", fake_iut(), {HCTS_PROGRAMS_LIB, 1, 2});
    RunInfo info;
    info.kind = "conformance";
    ResultsWriter w(kDir + "/writer-test/results.json", info, nullptr, nullptr);
    const auto null_if_empty = [](const std::string &s) { return s.empty() ? nlohmann::json() : nlohmann::json(s); };
    w.set_iut(fake_iut(), std::nullopt);
    EXPECT_EQ(w.doc()["iut"], (nlohmann::json{{"path", fake_iut().path()},
                                              {"sha256", null_if_empty(fake_iut().sha256())},
                                              {"version", nullptr},
                                              {"name", "libhcts_fake_iut.so"},
                                              {"missing_symbols", fake_iut().missing()}}));
    w.set_iut(fake_iut(), "fake 1.0");
    EXPECT_EQ(w.doc()["iut"]["version"], "fake 1.0");
    EXPECT_EQ(w.doc()["adapter"], nullptr);
    w.set_adapter(*ad);
    EXPECT_EQ(
        w.doc()["adapter"],
        (nlohmann::json{
            {"path", ad->path()}, {"sha256", null_if_empty(ad->sha256())}, {"name", "fake-v2"}, {"abi_version", 2}}));
    w.set_environment("atlas350", 2, {"n1", "n2"});
    w.set_segment_size(4096);
    EXPECT_EQ(w.doc()["environment"]["product"], "atlas350");
    EXPECT_EQ(w.doc()["environment"]["segment_size"], 4096);
    w.set_environment("", 2, {"n1", "n2"});
    w.set_segment_size(0);
    EXPECT_EQ(w.doc()["environment"]["product"], nullptr);
    EXPECT_EQ(w.doc()["environment"]["segment_size"], nullptr);
}
