// hcts-report: the command line. The work is in the library (renderers.h, bundle.h).
#include <algorithm>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include <hcts/expectations.h>

#include "bundle.h"
#include "renderers.h"
#include "results_io.h"

namespace fs = std::filesystem;
using namespace hcts::report;

namespace {

constexpr const char *kUsage = R"(usage:
  hcts-report render [--out DIR] [--expectations FILE] [--gate] RESULTS.json...
      write DIR/report.html, DIR/summary.md and DIR/junit.xml (DIR defaults to .);
      several results files give a comparison of the runs.
      --expectations FILE  apply known failures (reports/README.md) before rendering
      --gate               exit 1 unless every run passes its gate
  hcts-report apply [--expectations FILE] [--out OUT.json] [--gate] RESULTS.json
      the results document with expectations applied and clause verdicts and summary
      recomputed, to OUT.json (or standard output); --gate: exit 1 if its gate fails
  hcts-report bundle --out FILE.tar [--expectations FILE] RESULTS.json [REPORT_DIR]
      a submission bundle: results, environment, report (from REPORT_DIR, or rendered
      now) and SHA256SUMS over every member
  hcts-report verify FILE.tar
      re-check every checksum and that every MUST clause ran with a verdict;
      exit 0 if the bundle is intact and complete, 1 with the reason otherwise
  hcts-report --version
)";

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::string now_utc() {
  // SOURCE_DATE_EPOCH makes renderings reproducible (reproducible-builds.org convention).
  std::time_t t = std::time(nullptr);
  if (const char *epoch = std::getenv("SOURCE_DATE_EPOCH"); epoch && *epoch) t = static_cast<std::time_t>(std::atoll(epoch));
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

struct Options {
  std::optional<std::string> out, expectations;
  bool gate = false;
  std::vector<std::string> positional;
};

Options parse(int argc, char **argv, bool allow_gate) {
  Options o;
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&](const char *name) {
      if (i + 1 >= argc) throw UsageError(std::string(name) + " needs a value");
      return std::string(argv[++i]);
    };
    if (a == "--out") o.out = value("--out");
    else if (a.rfind("--out=", 0) == 0) o.out = a.substr(6);
    else if (a == "--expectations") o.expectations = value("--expectations");
    else if (a.rfind("--expectations=", 0) == 0) o.expectations = a.substr(15);
    else if (a == "--gate" && allow_gate) o.gate = true;
    else if (a.size() > 1 && a[0] == '-') throw UsageError("unknown option '" + a + "'");
    else o.positional.push_back(a);
  }
  return o;
}

std::vector<TarMember> render_all(std::vector<Run> &runs, const Options &o) {
  std::optional<hcts::expectations::ExpectationSet> set;
  if (o.expectations) set = hcts::expectations::ExpectationSet::load(*o.expectations);
  prepare_runs(runs, set ? &*set : nullptr);
  const RenderInfo info{now_utc(), o.expectations.value_or("")};
  return {{"report.html", render_html(runs, info)},
          {"summary.md", render_markdown(runs, info)},
          {"junit.xml", render_junit(runs, info)}};
}

int cmd_render(int argc, char **argv) {
  const auto o = parse(argc, argv, true);
  if (o.positional.empty()) throw UsageError("render needs at least one results.json");
  std::vector<Run> runs;
  for (const auto &p : o.positional) runs.push_back(load_run(p));
  const auto files = render_all(runs, o);
  const fs::path dir = o.out.value_or(".");
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw std::runtime_error(dir.string() + ": cannot create the output directory: " + ec.message());
  for (const auto &f : files) {
    const auto path = (dir / f.name).string();
    write_file_atomic(path, f.data);
    std::cout << "hcts-report: wrote " << path << "\n";
  }
  const auto overall = overall_verdict(runs);
  std::cout << "hcts-report: overall verdict " << overall << " (" << runs.size() << (runs.size() == 1 ? " run)" : " runs)") << "\n";
  return o.gate && overall != "PASS" ? 1 : 0;
}

int cmd_apply(int argc, char **argv) {
  const auto o = parse(argc, argv, true);
  if (o.positional.size() != 1) throw UsageError("apply takes exactly one results.json");
  std::vector<Run> runs{load_run(o.positional[0])};
  std::optional<hcts::expectations::ExpectationSet> set;
  if (o.expectations) set = hcts::expectations::ExpectationSet::load(*o.expectations);
  prepare_runs(runs, set ? &*set : nullptr);
  const auto text = runs[0].doc.dump(2) + "\n";
  if (o.out) {
    write_file_atomic(*o.out, text);
    std::cerr << "hcts-report: wrote " << *o.out << "\n";
  } else {
    std::cout << text;
  }
  const auto gate = gate_of(runs[0]);
  std::cerr << "hcts-report: gate " << gate << "\n";
  return o.gate && gate != "PASS" ? 1 : 0;
}

int cmd_bundle(int argc, char **argv) {
  const auto o = parse(argc, argv, false);
  if (!o.out) throw UsageError("bundle needs --out FILE.tar");
  if (o.positional.empty() || o.positional.size() > 2) throw UsageError("bundle takes one results.json and optionally a report directory");
  std::vector<Run> runs{load_run(o.positional[0])};
  std::vector<TarMember> extra;
  if (o.positional.size() == 2) {
    const fs::path dir = o.positional[1];
    if (!fs::is_directory(dir)) throw std::runtime_error(dir.string() + ": not a directory (the report directory to bundle)");
    std::vector<fs::path> files;
    for (const auto &entry : fs::directory_iterator(dir))
      if (entry.is_regular_file() && entry.path().extension() != ".tmp") files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    if (std::none_of(files.begin(), files.end(), [](const fs::path &p) { return p.filename() == "report.html"; }))
      throw std::runtime_error(dir.string() + ": has no report.html; render it first or leave the directory out");
    // The recorded gate still comes from the prepared run, so apply expectations the same way.
    std::optional<hcts::expectations::ExpectationSet> set;
    if (o.expectations) set = hcts::expectations::ExpectationSet::load(*o.expectations);
    prepare_runs(runs, set ? &*set : nullptr);
    for (const auto &p : files) extra.push_back({"report/" + p.filename().string(), read_file(p.string())});
  } else {
    for (auto &f : render_all(runs, o)) extra.push_back({"report/" + f.name, std::move(f.data)});
  }
  if (o.expectations) extra.push_back({"expectations.yaml", read_file(*o.expectations)});
  write_file_atomic(*o.out, make_bundle(runs[0], extra, now_utc()));
  std::cout << "hcts-report: wrote " << *o.out << " (" << extra.size() + 4 << " members)\n";
  return 0;
}

int cmd_verify(int argc, char **argv) {
  const auto o = parse(argc, argv, false);
  if (o.positional.size() != 1) throw UsageError("verify takes exactly one bundle file");
  const auto result = verify_bundle(read_file(o.positional[0]));
  if (!result.ok) {
    std::cerr << "hcts-report: verify " << o.positional[0] << ": REJECTED: " << result.reason << "\n";
    return 1;
  }
  std::cout << "hcts-report: verify " << o.positional[0] << ": OK: " << result.reason << "\n";
  return 0;
}

}  // namespace

int main(int argc, char **argv) {
  const std::string cmd = argc > 1 ? argv[1] : "";
  try {
    if (cmd == "render") return cmd_render(argc, argv);
    if (cmd == "apply") return cmd_apply(argc, argv);
    if (cmd == "bundle") return cmd_bundle(argc, argv);
    if (cmd == "verify") return cmd_verify(argc, argv);
    if (cmd == "--version") {
      std::cout << "hcts-report " << report_version() << " (reads hcts-results v1)\n";
      return 0;
    }
    if (cmd == "--help" || cmd == "-h" || cmd == "help") {
      std::cout << kUsage;
      return 0;
    }
    throw UsageError(cmd.empty() ? "no command given" : "unknown command '" + cmd + "'; allowed: render, apply, bundle, verify");
  } catch (const UsageError &e) {
    std::cerr << "hcts-report: " << e.what() << "\n" << kUsage;
    return 2;
  } catch (const std::exception &e) {
    std::cerr << "hcts-report: error: " << e.what() << "\n";
    return 1;
  }
}
