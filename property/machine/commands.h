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
  std::vector<uint8_t> posted;   // [rank]: a wait is posted
  std::vector<Op> postedOp;      // [rank]: which
  std::vector<uint32_t> maybeSet;  // [(rank * ranks + peer) * notifyNum + idx]: records not yet waited for
  uint32_t nextStamp = 1;
};

GenState initialGenState(const PropertySpec &spec, const RunConfig &cfg);

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

// The commands of the failing run most recently seen (the last failing run is
// the fully shrunk counterexample).
std::vector<std::string> &lastFailingLog();

}  // namespace hcts::prop
