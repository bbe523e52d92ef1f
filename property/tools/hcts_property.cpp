// hcts-property: runs the property suite against an implementation and reports
// each counterexample with its RapidCheck reproduce string, softverbs seed and
// a one-line command. See property/README.md.
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "driver/hcomm_driver.h"
#include "driver/sim_driver.h"
#include "machine/properties.h"
#include "machine/results.h"

#ifdef HCTS_PROPERTY_MPI
#include <mpi.h>

#include "driver/mpi_driver.h"
#endif

using namespace hcts::prop;

namespace {

const char *kUsage = R"(usage: hcts-property [options]
  --driver sim|hcomm        implementation to drive (default hcomm)
  --iut PATH                hcomm library to dlopen (default: $HCTS_IUT, else the reference libhcomm.so)
  --adapter PATH            conformance adapter (hcts_adapter.h) for device launches and device memory
                            (default: $HCTS_ADAPTER, else the reference's HcommRefDeviceLaunch)
  --sim-fault F             simulator fault: none, notify-before-data, index-off-by-one, host-accepted
  --property NAME           run only NAME (repeatable); --list shows them
  --cases N                 cases per property (default 100 sim / 25 hcomm; RC_PARAMS max_success wins)
  --long                    nightly: 10x the cases (also HCTS_PROPERTY_LONG=1)
  --seed N                  RapidCheck seed (RC_PARAMS seed= also works)
  --wait-timeout-ms N       timeout of generated waits (default 200)
  --results PATH            write an hcts-results v1 document (also HCTS_PROPERTY_RESULTS)
  --expect-counterexample   self-test mode: succeed iff every property fails with a
                            counterexample of at most --max-commands generated commands
  --max-commands N          default 5
  --mpi                     lockstep under mpirun, one rank per process (hcomm driver only);
                            rank 0 generates, judges and reports
  --list                    list the properties
environment: RC_PARAMS (seed=, max_success=, reproduce=), SOFTVERBS_SEED (reported), HCTS_IUT.
)";

[[noreturn]] void usageError(const std::string &msg) {
  std::cerr << "hcts-property: " << msg << "\n" << kUsage;
  std::exit(2);
}

std::string shellQuote(const std::string &s) {
  if (s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./=:,@+") ==
      std::string::npos)
    return s;
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

size_t generatedCommands(const std::vector<std::string> &ce) {
  size_t n = 0;
  for (const auto &c : ce)
    if (c.rfind("end of case: ", 0) != 0) ++n;
  return n;
}

SimFault parseFault(const std::string &f) {
  if (f == "none") return SimFault::None;
  if (f == "notify-before-data") return SimFault::NotifyBeforeData;
  if (f == "index-off-by-one") return SimFault::IndexOffByOne;
  if (f == "host-accepted") return SimFault::HostAccepted;
  usageError("unknown --sim-fault '" + f + "'; allowed: none, notify-before-data, index-off-by-one, host-accepted");
}

}  // namespace

int main(int argc, char **argv) {
  std::string driverName = "hcomm", iut, adapter, simFault = "none", resultsPath;
  std::vector<std::string> only;
  int cases = -1;
  bool longRun = std::getenv("HCTS_PROPERTY_LONG") && std::string(std::getenv("HCTS_PROPERTY_LONG")) == "1";
  bool expectCe = false, mpi = false;
  size_t maxCommands = 5;
  RunConfig cfg;
  if (const char *e = std::getenv("HCTS_IUT")) iut = e;
  if (const char *e = std::getenv("HCTS_ADAPTER")) adapter = e;
  if (const char *e = std::getenv("HCTS_PROPERTY_RESULTS")) resultsPath = e;

  // The arguments that select *what* runs go into the reproducer command.
  std::vector<std::string> keep;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usageError(a + " needs a value");
      return argv[++i];
    };
    auto number = [&](const std::string &v) -> unsigned long long {
      char *end = nullptr;
      const unsigned long long n = std::strtoull(v.c_str(), &end, 10);
      if (v.empty() || *end) usageError(a + " takes a number, got '" + v + "'");
      return n;
    };
    if (a == "--driver") { driverName = value(); keep.insert(keep.end(), {a, driverName}); }
    else if (a == "--iut") iut = value();
    else if (a == "--adapter") { adapter = value(); keep.insert(keep.end(), {a, adapter}); }
    else if (a == "--sim-fault") { simFault = value(); keep.insert(keep.end(), {a, simFault}); }
    else if (a == "--property") only.push_back(value());
    else if (a == "--cases") cases = static_cast<int>(number(value()));
    else if (a == "--long") longRun = true;
    else if (a == "--seed") cfg.seed = number(value());
    else if (a == "--wait-timeout-ms") {
      cfg.waitTimeoutMs = static_cast<uint32_t>(number(value()));
      keep.insert(keep.end(), {a, std::to_string(cfg.waitTimeoutMs)});
    }
    else if (a == "--results") resultsPath = value();
    else if (a == "--expect-counterexample") expectCe = true;
    else if (a == "--mpi") mpi = true;
    else if (a == "--max-commands") maxCommands = number(value());
    else if (a == "--list") {
      for (const auto &p : allProperties()) std::cout << p.name << "\t" << p.what << "\n";
      return 0;
    } else if (a == "-h" || a == "--help") {
      std::cout << kUsage;
      return 0;
    } else usageError("unknown argument '" + a + "'");
  }
  if (driverName != "sim" && driverName != "hcomm") usageError("unknown --driver '" + driverName + "'; allowed: sim, hcomm");
  for (const auto &n : only)
    if (!findProperty(n)) usageError("unknown property '" + n + "'; --list shows them");

  cfg.maxSuccess = cases > 0 ? cases : (driverName == "sim" ? 100 : 25);
  if (longRun) cfg.maxSuccess *= 10;

  std::unique_ptr<Driver> driver, localDriver;
  int worldRank = 0;
#ifdef HCTS_PROPERTY_MPI
  struct MpiSession {
    bool on = false;
    ~MpiSession() {
      if (on) MPI_Finalize();
    }
  } mpiSession;
  if (mpi) {
    if (driverName != "hcomm") usageError("--mpi needs --driver hcomm");
    MPI_Init(&argc, &argv);
    mpiSession.on = true;
    int size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &worldRank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2) usageError("--mpi needs at least 2 ranks (mpirun -np 2 ...)");
    cfg.geometry.ranks = static_cast<uint32_t>(size);
  }
#else
  if (mpi) usageError("this hcts-property was built without MPI; --mpi is not available");
#endif
  RunInfo info;
  info.ranks = cfg.geometry.ranks;
  const char *svSeed = std::getenv("SOFTVERBS_SEED");
  info.softverbsSeed = svSeed ? std::atoll(svSeed) : -1;
  if (driverName == "sim") {
    driver = makeSimDriver(parseFault(simFault));
    info.iutName = simFault == "none" ? "sim" : "sim:" + simFault;
    info.product = "atlas350";
    info.mode = "plain";
    info.transport = "in-memory simulator";
  } else {
    HcommDriverOptions opts;
    opts.library = iut;
    opts.adapter = adapter;
#ifdef HCTS_PROPERTY_MPI
    if (mpi) {
      opts.onlyRank = worldRank;
      opts.shareRootInfo = [](HcclRootInfo &root) { MPI_Bcast(&root, sizeof root, MPI_BYTE, 0, MPI_COMM_WORLD); };
    }
#endif
    try {
      localDriver = makeHcommDriver(opts);
    } catch (const std::exception &e) {
      std::cerr << "hcts-property: " << e.what() << "\n";
      return 2;
    }
    const auto d = describeHcommDriver(*localDriver);
#ifdef HCTS_PROPERTY_MPI
    if (mpi && worldRank != 0) {
      serveMpiDriver(*localDriver);
      return 0;
    }
    if (mpi) {
      driver = makeMpiDriver(*localDriver);
      info.transport = "one rank per MPI process over libibverbs";
      keep.push_back("--mpi");
    } else
#endif
    {
      driver = std::move(localDriver);
      info.transport = "in-process ranks over libibverbs";
    }
    info.iutPath = d.library;
    info.iutName = d.name;
    info.product = d.product;
    info.mode = svSeed ? "adversarial" : "plain";
    keep.insert(keep.end(), {"--iut", d.library});
  }

  std::ostringstream cmd;
  for (int i = 0; i < argc; ++i) cmd << (i ? " " : "") << shellQuote(argv[i]);
  info.command = cmd.str();
  std::unique_ptr<ResultsFile> results;
  if (!resultsPath.empty()) results = std::make_unique<ResultsFile>(resultsPath, info);

  int failures = 0, selfTestFailures = 0;
  for (const auto &spec : allProperties()) {
    if (!only.empty() && std::find(only.begin(), only.end(), spec.name) == only.end()) continue;
    std::cout << "hcts-property: " << spec.name << " (" << spec.what << ") on " << driver->name() << ", "
              << cfg.maxSuccess << " cases" << std::endl;
    PropertyOutcome o;
    try {
      o = runProperty(spec, cfg, *driver);
    } catch (const std::exception &e) {
      o.name = spec.name;
      o.description = std::string("the run failed: ") + e.what();
    }
    std::ostringstream repro;
    if (!o.reproduce.empty()) repro << "RC_PARAMS=" << shellQuote(o.reproduce) << " ";
    if (info.softverbsSeed >= 0) repro << "SOFTVERBS_SEED=" << info.softverbsSeed << " ";
    if (mpi) repro << "mpirun --oversubscribe -np " << cfg.geometry.ranks << " ";
    repro << shellQuote(argv[0]);
    for (const auto &k : keep) repro << " " << shellQuote(k);
    repro << " --property " << spec.name;
    if (o.passed) {
      std::cout << "  PASS after " << o.runs << " cases (seed " << o.seed << ")\n";
    } else {
      ++failures;
      std::cout << "  FAIL after " << o.runs << " cases, " << o.shrinks << " shrinks (seed " << o.seed << ")\n"
                << o.description << "\n  counterexample (" << generatedCommands(o.counterexample)
                << " generated commands):\n";
      for (const auto &c : o.counterexample) std::cout << "    " << c << "\n";
      std::cout << "  reproduce: " << repro.str() << "\n";
    }
    if (expectCe) {
      const size_t n = generatedCommands(o.counterexample);
      if (o.passed || o.reproduce.empty() || o.counterexample.empty() || n > maxCommands) {
        ++selfTestFailures;
        std::cout << "  SELF-TEST FAILED: expected a counterexample of at most " << maxCommands
                  << " commands, got " << (o.passed ? "none (the property passed)" : std::to_string(n)) << "\n";
      }
    }
    if (results) results->add(o, repro.str());
    std::cout << std::flush;
  }
  if (results) results->finish(true);
#ifdef HCTS_PROPERTY_MPI
  if (mpi) stopMpiServers();
#endif
  if (expectCe) return selfTestFailures == 0 ? 0 : 1;
  return failures == 0 ? 0 : 1;
}
