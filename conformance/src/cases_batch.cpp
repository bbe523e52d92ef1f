// Batches: HcommBatchTransferOnThread performs its descriptors in order and a
// bad descriptor refuses the whole batch (API.BT.*); HcommBatchModeStart/End
// hold the calls between them and submit them at End (API.BM.*).
#include "case_kit.h"

namespace hcts::cases_batch {
namespace {

constexpr uint64_t kLen = 4096;
constexpr uint32_t kLaunchMs = 30000;

HcommBatchTransferDesc desc(HcommTransferType type)
{
    HcommBatchTransferDesc d;
    std::memset(&d, 0, sizeof d);
    d.transType = type;
    return d;
}
HcommBatchTransferDesc write_desc(void *dst, const void *src, uint64_t len)
{
    HcommBatchTransferDesc d = desc(HCOMM_TRANSFER_TYPE_WRITE);
    d.transferInfo.write = {len, dst, const_cast<void *>(src)};
    return d;
}
HcommBatchTransferDesc record_desc(uint32_t idx)
{
    HcommBatchTransferDesc d = desc(HCOMM_TRANSFER_TYPE_NOTIFY_RECORD);
    d.transferInfo.notifyRecord.notifyIdx = idx;
    return d;
}

std::string rc_name(const Script &s, size_t i) { return hccl_result_name(s.rc(i)); }

} // namespace

// Rank 0 sends one batch to rank 1: a write to d1, a write with notify a to d2,
// a notify record b. Rank 1 waits for a, copies d2 at once, waits for b. d2
// must hold its payload at the wait, b must be raised, and d1 must hold its
// payload once both programs ended.
HCTS_CASE(Batch, TransferPerformsEveryDescriptor, clauses("API.BT.1"),
          needs(Feature::BatchTransfer, Feature::WriteWithNotify, Feature::NotifyWait, Feature::LocalCopy))
{
    const Ctx c = ctx();
    const World &w = c.w;
    const Device &dev = w.device();
    const uint32_t a = 30, b = 31;
    const StampKey k1{31, 1, 0}, k2{31, 2, 0};
    std::byte *snap = w.scratch();
    stage_write_pair(w, k1, k2, kLen, snap);
    mpi::phase_barrier("batch transfer prepared");
    Script s;
    if (w.rank == 0) {
        HcommBatchTransferDesc wwn = desc(HCOMM_TRANSFER_TYPE_WRITE_WITH_NOTIFY);
        wwn.transferInfo.writeWithNotify = {kLen, w.remote_inbox(1, 0) + 8192, w.outbox() + 8192, a};
        const std::vector<HcommBatchTransferDesc> descs{write_desc(w.remote_inbox(1, 0), w.outbox(), kLen), wwn,
                                                        record_desc(b)};
        s.batch(w.thread(), w.channel_to(1), descs);
    } else if (w.rank == 1) {
        s.wait(w.thread(), w.channel_to(0), a, w.ok_timeout());
        s.copy(w.thread(), snap, w.inbox(0) + 8192, kLen).only_if_previous_ok();
        // The record follows a completed write with notify: a few seconds are plenty.
        s.wait(w.thread(), w.channel_to(0), b, w.unit.seconds.value_or(true) ? 5U : 5000U);
    }
    const LaunchResult r = c.run(s, kLaunchMs);
    mpi::phase_barrier("batch transfer done");
    if (w.rank == 0) {
        ev().check("API.BT.1", s.rc(0) == 0 && r.ok(),
                   "HcommBatchTransferOnThread(write, write with notify, notify record) returned " + rc_name(s, 0) +
                       ", expected 0 (" + r.describe() + ")");
    } else if (w.rank == 1) {
        ev().check("API.BT.1", s.rc(0) == 0 && s.rc(2) == 0 && r.ok(),
                   "the waits for the batch's write with notify and its notify record returned " + rc_name(s, 0) +
                       " and " + rc_name(s, 2) + " (" + r.describe() + ")");
        if (s.rc(1) == HCCL_E_NOT_SUPPORT) {
            ev().unsupported("API.BT.1", "the copy right after the wait was refused with HCCL_E_NOT_SUPPORT");
        } else if (s.rc(1) == 0) {
            const PayloadCheck at_wait = check_payload(dev.get(snap, kLen), k2);
            ev().check("API.BT.1", at_wait.ok(),
                       "the batch's write with notify: right after its wait dst showed " + describe(at_wait));
        }
        const PayloadCheck d1 = check_payload(dev.get(w.inbox(0), kLen), k1);
        ev().check("API.BT.1", d1.ok(), "the batch's plain write: once both programs ended dst showed " + describe(d1));
    }
}

// Batches with one bad descriptor behind a valid write, and batches with a bad
// count or array, are refused as a whole: no byte of the valid write lands and
// the valid notify record in front of a bad one is not raised.
HCTS_CASE(Batch, BadDescriptorRefusesWholeBatch, clauses("API.BT.2", "API.BT.7"),
          needs(Feature::BatchTransfer, Feature::WriteWithNotify, Feature::NotifyWait, Feature::LocalCopy))
{
    const Ctx c = ctx();
    const World &w = c.w;
    constexpr uint32_t kQuiet = 24;
    struct Bad {
        std::string what;
        std::vector<int32_t> codes;      // any of them
        const char *clause = "API.BT.2"; // API.BT.7 where the vendor's unit test pins the code
    };
    // An unknown type: the reference says HCCL_E_PARA, the vendor's unit test pins
    // HCCL_E_NOT_SUPPORT (hcomm-api.md §9.6); both refuse the batch.
    const std::vector<Bad> bad{
        {"a transType of 99 behind a valid write", {HCCL_E_PARA, HCCL_E_NOT_SUPPORT}},
        {"a write with dst NULL behind a valid write", {HCCL_E_PTR}},
        {"a notify record on index notifyNum behind a valid write and a valid record", {HCCL_E_PARA}},
        {"transferDescNum 0", {HCCL_E_PARA}, "API.BT.7"},
        {"transferDescs NULL with transferDescNum 1", {HCCL_E_PTR}, "API.BT.7"},
        {"thread 0", {HCCL_E_PTR}, "API.BT.7"}};
    std::vector<Untouched> regions;
    for (size_t k = 0; k < bad.size(); ++k)
        regions.push_back({8192 + k * 8192, kLen});
    prepare_targets(c, 0, 1, regions, kLen, StampKey{32, 0, 0});
    Script s;
    if (w.rank == 0) {
        const auto valid = [&](size_t k) {
            return write_desc(w.remote_inbox(1, 0) + regions[k].off, w.outbox(), kLen);
        };
        HcommBatchTransferDesc unknown = desc(HCOMM_TRANSFER_TYPE_WRITE);
        unknown.transType = static_cast<HcommTransferType>(99);
        const ThreadHandle t = w.thread();
        const ChannelHandle ch = w.channel_to(1);
        s.batch(t, ch, std::vector{valid(0), unknown});
        s.batch(t, ch, std::vector{valid(1), write_desc(nullptr, w.outbox(), kLen)});
        s.batch(t, ch, std::vector{valid(2), record_desc(kQuiet), record_desc(World::kNotifyNum)});
        s.batch(t, ch, std::vector{valid(3)}, 0U);
        s.batch(t, ch, {}, 1U);
        s.batch(0, ch, std::vector{valid(5)});
    }
    const LaunchResult r = c.run(s, kLaunchMs);
    if (w.rank == 0) {
        if (r.trouble() == Trouble::Missing)
            ev().unsupported("API.BT.2", "HcommBatchTransferOnThread is absent (" + r.describe() + ")");
        else
            for (size_t k = 0; k < bad.size(); ++k) {
                std::string expected;
                for (const int32_t code : bad[k].codes)
                    expected += (expected.empty() ? "" : " or ") + hccl_result_name(code);
                ev().check(bad[k].clause, std::ranges::find(bad[k].codes, s.rc(k)) != bad[k].codes.end(),
                           "a batch with " + bad[k].what + " returned " + rc_name(s, k) + ", expected " + expected +
                               " (" + r.describe() + ")");
            }
    }
    prove_no_effect(c, 0, 1, 0, 0, kQuiet + 1, regions, {kQuiet}, "API.BT.2");
}

// The code of a NULL operand, whatever the entry's type (the vendor's unit test: a NULL
// dst or src in an entry is HCCL_E_PTR): a batch of one entry with dst, then src, NULL, for
// each of the six transfer types with operands. Whether a refused entry takes the rest of
// its batch along is API.BT.2's business; here each batch holds only the bad entry.
HCTS_CASE(Batch, NullOperandIsPtrError, clauses("API.BT.6"),
          needs(Feature::BatchTransfer, Feature::WriteWithNotify, Feature::Read))
{
    const Ctx c = ctx();
    const World &w = c.w;
    constexpr uint32_t kQuietIdx = 25; // never waited for: a wrongly accepted entry's notify goes nowhere
    const struct {
        HcommTransferType type;
        const char *name;
    } types[] = {{HCOMM_TRANSFER_TYPE_WRITE, "WRITE"},
                 {HCOMM_TRANSFER_TYPE_WRITE_REDUCE, "WRITE_REDUCE"},
                 {HCOMM_TRANSFER_TYPE_WRITE_WITH_NOTIFY, "WRITE_WITH_NOTIFY"},
                 {HCOMM_TRANSFER_TYPE_WRITE_REDUCE_WITH_NOTIFY, "WRITE_REDUCE_WITH_NOTIFY"},
                 {HCOMM_TRANSFER_TYPE_READ, "READ"},
                 {HCOMM_TRANSFER_TYPE_READ_REDUCE, "READ_REDUCE"}};
    std::vector<std::string> rows; // what each batch of the script asked
    Script s;
    if (w.rank == 0) {
        for (const auto &[type, name] : types) {
            const bool read = type == HCOMM_TRANSFER_TYPE_READ || type == HCOMM_TRANSFER_TYPE_READ_REDUCE;
            // Valid operands: a write goes from the outbox to the peer's inbox, a read back.
            void *const remote = w.remote_inbox(1, 0) + 4096;
            void *const local = w.scratch() + 4096;
            for (const bool null_dst : {true, false}) {
                HcommBatchTransferDesc d = desc(type);
                auto &r = d.transferInfo.writeReduceWithNotify; // every type's operands share this layout
                r.count = 16;
                r.dst = null_dst ? nullptr : (read ? local : remote);
                r.src = null_dst ? (read ? remote : local) : nullptr;
                r.reduceOp = HCOMM_REDUCE_SUM;
                r.dataType = HCOMM_DATA_TYPE_INT32;
                r.notifyIdx = kQuietIdx;
                if (type == HCOMM_TRANSFER_TYPE_WRITE_WITH_NOTIFY)
                    d.transferInfo.writeWithNotify.notifyIdx = kQuietIdx;
                s.batch(w.thread(), w.channel_to(1), std::vector{d});
                rows.push_back({"a " + std::string(name) + " entry with " + (null_dst ? "dst" : "src") + " NULL"});
            }
        }
    }
    const LaunchResult r = c.run(s, kLaunchMs);
    if (w.rank == 0) {
        if (r.trouble() == Trouble::Missing) {
            ev().unsupported("API.BT.6", "HcommBatchTransferOnThread is absent (" + r.describe() + ")");
        } else {
            for (size_t k = 0; k < rows.size(); ++k)
                ev().check("API.BT.6", s.rc(k) == HCCL_E_PTR,
                           "a batch of " + rows[k] + " returned " + rc_name(s, k) + ", expected HCCL_E_PTR (" +
                               r.describe() + ")");
        }
    }
    mpi::phase_barrier("batch NULL operands tried");
}

// Three brackets with a tag, an empty tag and NULL (a temporary batch, as the
// documents allow), each around a local copy: every call returns 0 and every
// copy has run once the program ended.
HCTS_CASE(Batch, ModeBracketSubmitsAtEnd, clauses("API.BM.1"), needs(Feature::BatchMode, Feature::LocalCopy))
{
    const Ctx c = ctx();
    const World &w = c.w;
    const Device &dev = w.device();
    if (w.rank == 0) {
        const std::vector<std::optional<std::string_view>> tags{"hcts-batch", "", std::nullopt};
        const auto src = [&](size_t k) { return w.scratch() + k * 8192; };
        const auto dst = [&](size_t k) { return w.scratch() + 65536 + k * 8192; };
        Script s;
        for (size_t k = 0; k < tags.size(); ++k) {
            std::vector<std::byte> p(kLen);
            fill_payload(p, StampKey{33, static_cast<uint32_t>(k), 0});
            dev.put(src(k), p);
            dev.poison(dst(k), kLen);
            s.batch_start(tags[k]);
            s.copy(w.thread(), dst(k), src(k), kLen);
            s.batch_end(tags[k]);
        }
        const LaunchResult r = c.run(s, kLaunchMs);
        for (size_t k = 0; k < tags.size(); ++k) {
            const std::string tag = tags[k] ? "\"" + std::string(*tags[k]) + "\"" : "NULL";
            if (s.rc(3 * k + 1) == HCCL_E_NOT_SUPPORT) {
                ev().unsupported("API.BM.1", "the local copy in the batch was refused with HCCL_E_NOT_SUPPORT");
                continue;
            }
            ev().check("API.BM.1", s.rc(3 * k) == 0 && s.rc(3 * k + 1) == 0 && s.rc(3 * k + 2) == 0,
                       "HcommBatchModeStart(" + tag + "), a copy and HcommBatchModeEnd(" + tag + ") returned " +
                           rc_name(s, 3 * k) + ", " + rc_name(s, 3 * k + 1) + " and " + rc_name(s, 3 * k + 2) +
                           ", expected 0 each (" + r.describe() + ")");
            const PayloadCheck seen = check_payload(dev.get(dst(k), kLen), StampKey{33, static_cast<uint32_t>(k), 0});
            ev().check("API.BM.1", seen.ok(),
                       "the copy inside the batch tagged " + tag + " had not run when the program ended: dst showed " +
                           describe(seen));
        }
    }
    mpi::phase_barrier("batch mode bracket");
}

// Records are calls like any other inside the bracket: held with the transfers and run
// at End in program order. Thread a holds, in the batch, a 16 MiB copy, the payload's
// copy and a thread notify record to thread b; after End, b waits for the record and
// copies the payload's destination. A library that raises the record at the call (not
// held) releases b while a is still on its first copy, and b copies stale bytes.
HCTS_CASE(Batch, ModeHoldsRecordsInOrder, clauses("API.BM.1"),
          needs(Feature::BatchMode, Feature::LocalCopy, Feature::ThreadNotify, Feature::DeviceThreads))
{
    const Ctx c = ctx();
    const World &w = c.w;
    const Device &dev = w.device();
    if (w.rank == 0) {
        constexpr uint64_t kFiller = 16ULL << 20;
        constexpr uint32_t kIdx = 5;
        const ThreadHandle a = w.threads.at(0), b = w.threads.at(1);
        std::byte *const filler_src = w.scratch();
        std::byte *const filler_dst = w.scratch() + kFiller;
        std::byte *const src = w.scratch() + 2 * kFiller;
        std::byte *const dst = src + 8192;
        std::byte *const snap = dst + 8192;
        std::vector<std::byte> p(kLen);
        fill_payload(p, StampKey{34, 0, 0});
        dev.put(src, p);
        dev.poison(dst, kLen);
        dev.poison(snap, kLen);
        Script s;
        s.batch_start("hcts-held-record");
        s.copy(a, filler_dst, filler_src, kFiller);
        s.copy(a, dst, src, kLen);
        s.thread_record(a, b, kIdx);
        s.batch_end("hcts-held-record");
        s.thread_wait(b, kIdx, w.ok_timeout());
        s.copy(b, snap, dst, kLen).only_if_previous_ok();
        const LaunchResult r = c.run(s, kLaunchMs);
        if (s.first_unsupported()) {
            ev().unsupported("API.BM.1",
                             "a call of the program was refused with HCCL_E_NOT_SUPPORT (" + r.describe() + ")");
        } else {
            bool all_ok = true;
            for (size_t k = 0; k < 7; ++k)
                all_ok = all_ok && s.rc(k) == 0;
            ev().check("API.BM.1", all_ok && r.ok(),
                       "the batch of two copies and a thread record, the wait for it and the copy after it returned " +
                           rc_name(s, 0) + ", " + rc_name(s, 1) + ", " + rc_name(s, 2) + ", " + rc_name(s, 3) + ", " +
                           rc_name(s, 4) + ", " + rc_name(s, 5) + ", " + rc_name(s, 6) + " (" + r.describe() + ")");
            const PayloadCheck seen = check_payload(dev.get(snap, kLen), StampKey{34, 0, 0});
            ev().check("API.BM.1", seen.ok(),
                       "the thread released by a record held in the batch after a copy did not see the copy's "
                       "bytes: the record ran before the copy it follows (" +
                           describe(seen) + ")");
        }
    }
    mpi::phase_barrier("batch mode holds records");
}

// Misuse of the bracket: End with no open batch, Start inside an open batch,
// End with another tag, and a host-side Start.
HCTS_CASE(Batch, ModeMisuseRefused, clauses("API.BM.2"), needs(Feature::BatchMode))
{
    const Ctx c = ctx();
    const World &w = c.w;
    if (w.rank == 0) {
        Script s;
        s.batch_end("hcts-none-open");
        s.batch_start("hcts-a");
        s.batch_start("hcts-b");
        s.batch_end("hcts-b");
        s.batch_end("hcts-a");
        const struct {
            const char *what;
            int32_t code;
        } rows[] = {{"HcommBatchModeEnd with no batch open", HCCL_E_PARA},
                    {"HcommBatchModeStart(\"hcts-a\")", HCCL_SUCCESS},
                    {"HcommBatchModeStart(\"hcts-b\") while \"hcts-a\" is open", HCCL_E_PARA},
                    {"HcommBatchModeEnd(\"hcts-b\") while \"hcts-a\" is open", HCCL_E_PARA},
                    {"HcommBatchModeEnd(\"hcts-a\")", HCCL_SUCCESS}};
        const LaunchResult r = c.run(s, kLaunchMs);
        for (size_t i = 0; i < std::size(rows); ++i)
            ev().check("API.BM.2", s.rc(i) == rows[i].code,
                       std::string(rows[i].what) + " returned " + rc_name(s, i) + ", expected " +
                           hccl_result_name(rows[i].code) + " (" + r.describe() + ")");
        const HcommApi &api = iut().api();
        const int32_t host = api.HcommBatchModeStart("hcts-host");
        if (host == 0)
            api.HcommBatchModeEnd("hcts-host"); // leave no batch open behind the case
        ev().check("API.BM.2", host == HCCL_E_NOT_SUPPORT,
                   "HcommBatchModeStart from the host returned " + hccl_result_name(host) +
                       ", expected HCCL_E_NOT_SUPPORT (batch mode exists in device programs)");
    }
    mpi::phase_barrier("batch mode misuse");
}

} // namespace hcts::cases_batch
