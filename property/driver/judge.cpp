#include "driver/judge.h"

#include <sstream>

namespace hcts::prop {
namespace {

// The clause whose promise a valid call of this kind rests on: a valid call
// that fails, or whose task fails, breaks it.
const char *clause_of_call(OpKind k)
{
    switch (k) {
    case OpKind::Wwn: return "WWN.VIS.1";
    case OpKind::Write:
    case OpKind::Fence: return "API.FEN.1";
    case OpKind::Read: return "API.RD.1";
    case OpKind::Record: return "WWN.LIT.11";
    case OpKind::LocalCopy: return "API.CPY.1";
    case OpKind::Wait:
    case OpKind::PostWait:
    case OpKind::Join: return "WWN.NTF.1";
    case OpKind::Stamp:
    case OpKind::Check: break;
    }
    return "WWN.VIS.1";
}

} // namespace

Judge::Judge(Driver &driver, const Geometry &g, NotifyProfile profile, GatesOn gates)
    : driver_(driver), model_(g, profile), gates_(std::move(gates))
{
    driver_.reset(g);
    posted_.assign(g.ranks, Op{OpKind::Join});
    posted_at_.assign(g.ranks, Clock::time_point{});
}

uint64_t Judge::late_from(Clock::time_point deadline) const
{
    // A record whose call started this close to the deadline may land after it.
    const auto margin = std::chrono::milliseconds(100);
    for (const auto &[op, at] : issued_)
        if (at > deadline - margin)
            return op;
    return UINT64_MAX;
}

Judge::~Judge()
{
    // A posted wait still outstanding at the end of a case must not outlive it.
    for (uint32_t r = 0; r < posted_.size(); ++r) {
        if (posted_[r].kind == OpKind::Join)
            continue;
        try {
            (void)driver_.join(r);
        } catch (...) {
        }
    }
}

std::string Judge::sort(const Violations &v)
{
    std::string failing;
    for (const auto &x : v) {
        if (gates_(x.clause)) {
            if (failed_clause_.empty())
                failed_clause_ = x.clause;
            failing += x.clause + ": " + x.text + "\n";
        } else {
            auto &d = departures_[x.clause];
            if (d.count++ == 0)
                d.example = x.text;
        }
    }
    return failing;
}

std::string Judge::judge_call(const Op &op, const Expectation &exp, int32_t rc)
{
    if (exp.accept && rc != 0)
        // Not applied: the model cannot know what a failed call did; what it
        // did shows in later checks only as extra violations.
        return sort(clause_of_call(op.kind),
                    show(op) + " returned " + std::to_string(rc) + "; a valid call must return 0");
    if (exp.accept) {
        model_.issue(op);
        return {};
    }
    std::string err;
    const bool gating = gates_(exp.clause);
    if (rc == 0)
        err = sort(exp.clause, show(op) + " returned 0; " +
                                   (gating ? "it must be rejected: " : "the reference rejects it: ") + exp.reason);
    if (rc == 0 && !gating)
        model_.tolerate(op, true);
    else if (rc != 0)
        model_.rejected(op, exp.clause);
    return err;
}

std::string Judge::judge_wait(const Op &op, const WaitResult &r, uint64_t late_from_op)
{
    const auto exp = model_.expect(op);
    if (!exp.accept) {
        std::string err = judge_call(op, exp, r.rc);
        if (r.rc != 0 && r.completed)
            err += sort(exp.clause, show(op) + " was rejected but reported a completed wait");
        return err;
    }
    if (r.rc != 0)
        return sort(clause_of_call(op.kind),
                    show(op) + " returned " + std::to_string(r.rc) + "; a valid wait must be accepted");
    std::string err;
    if (!r.detail.empty())
        err += sort(clause_of_call(op.kind), show(op) + ": " + r.detail);
    if (!r.completed && r.detail.empty() &&
        model_.wait_allowed(op.rank, op.peer, op.idx) == WaitAllowed::MustComplete) {
        // Nothing bounds delivery latency: before calling a notify lost, give it
        // one long wait. If that completes, the first wait was merely early.
        Op confirm = op;
        confirm.kind = OpKind::Wait;
        confirm.timeout_ms = kConfirmTimeoutMs;
        const WaitResult again = driver_.wait(confirm);
        if (again.rc == 0 && again.completed) {
            log_.push_back("(notify arrived only within the confirmation wait of " + std::to_string(kConfirmTimeoutMs) +
                           " ms: slow, not lost)");
            return err + sort(model_.on_wait(op.rank, op.peer, op.idx, true, again.snapshot, late_from_op));
        }
    }
    return err + sort(model_.on_wait(op.rank, op.peer, op.idx, r.completed, r.snapshot, late_from_op));
}

std::string Judge::step(const Op &op)
{
    log_.push_back(show(op));
    std::ostringstream err;
    switch (op.kind) {
    case OpKind::Wwn:
    case OpKind::Write:
    case OpKind::Read:
    case OpKind::Record:
    case OpKind::LocalCopy:
    case OpKind::Fence: {
        const auto exp = model_.expect(op);
        const uint64_t op_number = model_.ops_issued();
        const auto started = Clock::now();
        const CallResult r = driver_.call(op);
        if (op.kind == OpKind::Wwn || op.kind == OpKind::Record)
            issued_.emplace_back(op_number, started);
        err << judge_call(op, exp, r.rc);
        if (r.rc == 0 && r.task_error != 0)
            err << sort(exp.accept ? clause_of_call(op.kind) : exp.clause,
                        show(op) + " was accepted, then its task failed asynchronously with " +
                            std::to_string(r.task_error));
        break;
    }
    case OpKind::Stamp: {
        const auto bytes = model_.stamp_bytes(op);
        driver_.write_region(op.rank, model_.geometry().window_to_region(op.dst_off), bytes);
        model_.issue(op);
        break;
    }
    case OpKind::Wait:
        // A post whose result was pending (possibly a rejected one the generator
        // does not count as posted) is collected first.
        if (posted_[op.rank].kind != OpKind::Join)
            err << step(Op{OpKind::Join, op.rank});
        err << judge_wait(op, driver_.wait(op));
        break;
    case OpKind::PostWait: {
        if (posted_[op.rank].kind != OpKind::Join)
            err << step(Op{OpKind::Join, op.rank});
        const auto exp = model_.expect(op);
        posted_at_[op.rank] = Clock::now();
        const int32_t rc = driver_.post_wait(op);
        if (rc == kRcPending) {
            posted_[op.rank] = op; // judged, rejection included, at its Join
        } else if (!exp.accept || rc != 0) {
            // Nothing stays posted after a rejected call.
            WaitResult r;
            r.rc = rc;
            err << judge_wait(op, r);
        } else {
            posted_[op.rank] = op;
        }
        break;
    }
    case OpKind::Join: {
        Op w = posted_[op.rank];
        if (w.kind == OpKind::Join)
            break; // nothing posted (the post was rejected)
        posted_[op.rank] = Op{OpKind::Join};
        const WaitResult r = driver_.join(op.rank);
        err << judge_wait(w, r, late_from(posted_at_[op.rank] + std::chrono::milliseconds(w.timeout_ms)));
        break;
    }
    case OpKind::Check:
        for (uint32_t r = 0; r < model_.geometry().ranks; ++r)
            err << sort(model_.check_region(r, driver_.read_region(r)));
        break;
    }
    return err.str();
}

std::string Judge::finish()
{
    std::string err;
    const size_t first = log_.size();
    for (uint32_t r = 0; r < posted_.size(); ++r)
        if (posted_[r].kind != OpKind::Join)
            err += step(Op{OpKind::Join, r});
    err += step(Op{OpKind::Check});
    // Mark the steps every case ends with, so a counterexample shows which
    // commands were generated.
    for (size_t i = first; i < log_.size(); ++i)
        log_[i] = "end of case: " + log_[i];
    return err;
}

} // namespace hcts::prop
