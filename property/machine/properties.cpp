#include "machine/properties.h"

#include <cstdlib>
#include <iostream>
#include <sstream>

#include <rapidcheck.h>
#include <rapidcheck/state.h>

#include "machine/commands.h"

namespace hcts::prop {
namespace {

Mix writeBeforeNotify() {
  Mix m;
  m.wwn = 6; m.write = 2; m.fence = 1; m.postWait = 3; m.join = 3; m.wait = 3; m.stamp = 1; m.check = 1;
  return m;
}
Mix indexBounds() {
  Mix m;
  m.wwn = 2; m.wwnInvalidIdx = 3; m.record = 1; m.recordInvalidIdx = 2; m.wait = 2; m.waitInvalidIdx = 2;
  m.postWait = 1; m.join = 1; m.check = 1;
  return m;
}
Mix deviceOnly() {
  Mix m;
  m.wwn = 2; m.wwnHost = 3; m.wwnWrongEngine = 2; m.wait = 2; m.postWait = 1; m.join = 1; m.check = 2;
  return m;
}
Mix addressChecks() {
  Mix m;
  m.wwn = 2; m.wwnBadAddr = 4; m.wait = 2; m.stamp = 1; m.check = 2;
  return m;
}
Mix exactlyOnce() {
  Mix m;
  m.wwn = 2; m.record = 3; m.wait = 4; m.postWait = 2; m.join = 2;
  return m;
}
Mix fullModel() {
  Mix m;
  m.wwn = 6; m.wwnInvalidIdx = 1; m.wwnBadAddr = 1; m.wwnHost = 1; m.wwnWrongEngine = 1;
  m.write = 2; m.read = 2; m.record = 2; m.recordInvalidIdx = 1; m.wait = 3; m.waitInvalidIdx = 1;
  m.postWait = 2; m.join = 2; m.localCopy = 2; m.fence = 1; m.stamp = 2; m.check = 1;
  return m;
}

// Counts accepted shrink steps; prints nothing (the runner reports).
class ShrinkCounter final : public rc::detail::TestListener {
 public:
  void onTestCaseFinished(const rc::detail::CaseDescription &) override {}
  void onShrinkTried(const rc::detail::CaseDescription &, bool accepted) override {
    if (accepted) ++shrinks;
  }
  void onTestFinished(const rc::detail::TestMetadata &, const rc::detail::TestResult &) override {}
  int shrinks = 0;
};

bool rcParamsHas(const char *key) {
  const char *p = std::getenv("RC_PARAMS");
  return p && std::string(p).find(key) != std::string::npos;
}

}  // namespace

const std::vector<PropertySpec> &allProperties() {
  static const std::vector<PropertySpec> props = {
      {"WriteBeforeNotify", "after a wait consumes a WWN's notify, all of its payload is visible (device snapshot)",
       writeBeforeNotify()},
      {"IndexBounds", "every out-of-range notify index is rejected with no byte written and no notify raised",
       indexBounds()},
      {"DeviceOnly", "WWN from the host or on a non-AICPU_TS thread is rejected with no side effect", deviceOnly()},
      {"AddressChecks", "len 0, null, straddling, past-the-end and overflowing ranges are rejected with no side effect",
       addressChecks()},
      {"NotifyExactlyOnce", "no lost and no spurious notify: a wait completes iff a record is outstanding",
       exactlyOnce()},
      {"FullModel", "every command mixed; memory (guards, sources) always within the model's allowed set",
       fullModel()},
  };
  return props;
}

const PropertySpec *findProperty(const std::string &name) {
  for (const auto &p : allProperties())
    if (p.name == name) return &p;
  return nullptr;
}

PropertyOutcome runProperty(const PropertySpec &spec, const RunConfig &cfg, Driver &driver) {
  PropertyOutcome out;
  out.name = spec.name;
  lastFailingLog().clear();

  auto body = [&] {
    Judge j(driver, cfg.geometry, cfg.profile);
    const GenState s0 = initialGenState(spec, cfg);
    rc::state::check(s0, h, rc::state::gen::execOneOfWithArgs<OpCommand>());
    const std::string err = j.finish();
    if (!err.empty()) {
      lastFailingLog() = j.log();
      RC_FAIL(err);
    }
  };

  const auto &conf = rc::detail::configuration();
  rc::detail::TestParams params = conf.testParams;
  if (cfg.seed != 0) params.seed = cfg.seed;
  if (!rcParamsHas("max_success")) params.maxSuccess = cfg.maxSuccess;
  if (!rcParamsHas("max_size")) params.maxSize = cfg.maxSize;
  out.seed = params.seed;

  rc::detail::TestMetadata meta;
  meta.id = spec.name;
  meta.description = spec.what;
  ShrinkCounter listener;
  std::unordered_map<std::string, rc::detail::Reproduce> reproduceMap;
  if (cfg.useReproduce) reproduceMap = conf.reproduce;
  // A failure that depends on a race may not show on every run (RapidCheck
  // #137): a reproduce string is retried a few times before giving up.
  const bool reproducing = reproduceMap.count(spec.name) != 0;
  const int attempts = reproducing ? kReproduceAttempts : 1;
  auto result = rc::detail::checkProperty(rc::detail::toProperty(body), meta, params, listener, reproduceMap);
  for (int a = 1; a < attempts && result.is<rc::detail::Error>(); ++a) {
    std::cerr << "hcts-property: the reproduced case passed (attempt " << a << " of " << attempts
              << "); it depends on timing, retrying\n";
    result = rc::detail::checkProperty(rc::detail::toProperty(body), meta, params, listener, reproduceMap);
  }

  out.shrinks = listener.shrinks;
  if (result.is<rc::detail::SuccessResult>()) {
    out.passed = true;
    out.runs = result.get<rc::detail::SuccessResult>().numSuccess;
  } else if (result.is<rc::detail::FailureResult>()) {
    const auto &f = result.get<rc::detail::FailureResult>();
    out.runs = f.numSuccess + 1;
    out.description = f.description;
    rc::detail::Configuration only;
    only.reproduce[spec.name] = f.reproduce;
    out.reproduce = rc::detail::configToMinimalString(only);
    out.counterexample = lastFailingLog();
  } else if (result.is<rc::detail::GaveUpResult>()) {
    out.gaveUp = true;
    out.runs = result.get<rc::detail::GaveUpResult>().numSuccess;
    out.description = "gave up: " + result.get<rc::detail::GaveUpResult>().description;
  } else {
    out.description = "error: " + result.get<rc::detail::Error>().description;
  }
  return out;
}

}  // namespace hcts::prop
