// commands.h: the rc::state model used for *generation* (which commands are
// valid next) and the one command type that carries an Op. Judging happens in
// the Judge, whose Model sees the observations.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <vector>

#include <rapidcheck.h>
#include <rapidcheck/state.h>

#include "driver/judge.h"
#include "machine/properties.h"

namespace hcts::prop {

struct GenState {
    const PropertySpec *spec = nullptr;
    const RunConfig *cfg = nullptr;
    std::vector<uint8_t> posted;     // [rank]: a wait is posted
    std::vector<Op> posted_op;       // [rank]: which
    std::vector<uint32_t> maybe_set; // [(rank * ranks + peer) * notifyNum + idx]: records not yet waited for
    uint32_t next_stamp = 1;
};

GenState initial_gen_state(const PropertySpec &spec, const RunConfig &cfg);

class OpCommand : public rc::state::Command<GenState, Judge> {
  public:
    explicit OpCommand(const GenState &s);
    void checkPreconditions(const GenState &s) const override;
    void apply(GenState &s) const override;
    void run(const GenState &s, Judge &h) const override;
    void show(std::ostream &os) const override;
    const Op &op() const { return op_; }

  private:
    Op op_;
};

// What the most recent failing case of the property being run left: its
// commands (the last failing run is the fully shrunk counterexample) and what
// failed. The suite keeps the message itself: RapidCheck replays the shrunk
// case for its description, and a case that depends on a race may pass then.
struct CaseFailure {
    std::vector<std::string> log;
    std::string why;
    std::string clause; // the clause of the first violation that failed it (empty for the harness)
    // The harness, not the implementation, failed (a driver threw): no
    // observation, so the property is ERROR. Sticky for the rest of the property.
    bool harness = false;
};
CaseFailure &last_failure();
// Records the failure of the case `j` (null: before it started) and fails it.
[[noreturn]] void fail_case(const Judge *j, std::string why, bool harness);

} // namespace hcts::prop
