#include "machine/results.h"

#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <random>
#include <stdexcept>

#include <nlohmann/json.hpp>

namespace hcts::prop {

std::string isoNow() {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

ResultsFile::ResultsFile(std::string path, RunInfo info) : path_(std::move(path)), info_(std::move(info)) {
  started_ = isoNow();
  std::string compact;
  for (char c : started_)
    if (c != '-' && c != ':') compact += c;
  char suffix[8];
  std::snprintf(suffix, sizeof suffix, "-%04x", static_cast<unsigned>(std::random_device{}() & 0xffff));
  id_ = compact + suffix;
  write("running");
}

void ResultsFile::add(const PropertyOutcome &o, const std::string &reproduceCommand) {
  outcomes_.push_back(o);
  commands_.push_back(reproduceCommand);
  write("running");
}

void ResultsFile::finish(bool complete) { write(complete ? "complete" : "aborted"); }

void ResultsFile::write(const std::string &status) {
  using nlohmann::json;
  json props = json::array();
  int pass = 0, fail = 0;
  for (size_t i = 0; i < outcomes_.size(); ++i) {
    const auto &o = outcomes_[i];
    const bool ok = o.passed;
    (ok ? pass : fail)++;
    json p = {{"name", o.name},
              {"runs", o.runs},
              {"verdict", ok ? "PASS" : "FAIL"},
              {"seed", o.seed},
              {"reproduce", o.reproduce.empty() ? json(nullptr) : json("RC_PARAMS=\"" + o.reproduce + "\"")},
              {"command", commands_[i]},
              {"counterexample", o.passed ? json(nullptr) : json(o.counterexample)},
              {"shrinks", o.shrinks}};
    if (!o.description.empty()) p["reason"] = o.description;
    props.push_back(std::move(p));
  }
  json doc = {
      {"schema", "hcts-results"},
      {"schema_version", 1},
      {"run",
       {{"id", id_},
        {"status", status},
        {"started", started_},
        {"finished", status == "running" ? json(nullptr) : json(isoNow())},
        {"suite_version", "0.1.0"},
        {"suite_commit", HCTS_SUITE_COMMIT},
        {"command", info_.command},
        {"mode", info_.mode},
        {"seed", info_.softverbsSeed >= 0 ? json(info_.softverbsSeed) : json(nullptr)},
        {"kind", "property"}}},
      {"iut", {{"path", info_.iutPath.empty() ? json(nullptr) : json(info_.iutPath)},
               {"sha256", nullptr}, {"version", nullptr}, {"name", info_.iutName}}},
      {"adapter", nullptr},
      {"environment", {{"product", info_.product}, {"ranks", info_.ranks}, {"transport", info_.transport}}},
      {"clauses", json::array()},
      {"cases", json::array()},
      {"litmus", json::array()},
      {"properties", props},
      {"expectations", {{"file", nullptr}, {"waived", json::array()}, {"xpass", json::array()}}},
      {"summary",
       {{"by_verdict", {{"PASS", pass}, {"FAIL", fail}, {"NOT_SUPPORTED", 0}, {"PROFILE", 0}, {"HAZARD", 0},
                        {"TIMEOUT", 0}, {"CRASH", 0}, {"WAIVED", 0}, {"XPASS", 0}}},
        {"must_total", 0},
        {"must_passed", 0},
        {"gate", fail == 0 ? "pass" : "fail"}}}};
  const std::string tmp = path_ + ".tmp";
  {
    std::ofstream out(tmp);
    if (!out) throw std::runtime_error("cannot write results to '" + tmp + "'");
    out << doc.dump(2) << "\n";
  }
  if (std::rename(tmp.c_str(), path_.c_str()) != 0)
    throw std::runtime_error("cannot rename '" + tmp + "' to '" + path_ + "'");
}

}  // namespace hcts::prop
