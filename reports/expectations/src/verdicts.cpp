// The verdict order and the derived parts of a results document (clause
// verdicts from cases, the summary, the gate).
#include <algorithm>
#include <array>
#include <map>
#include <stdexcept>

#include "hcts/expectations.h"

namespace hcts::expectations {
namespace {

// Best first; the index is the rank.
constexpr std::array<std::string_view, 9> kOrder = {
    "PASS", "PROFILE", "WAIVED", "NOT_SUPPORTED", "HAZARD", "XPASS", "FAIL", "TIMEOUT", "CRASH"};

std::string string_or(const nlohmann::json &obj, const char *key, std::string fallback) {
  if (!obj.is_object()) return fallback;
  const auto it = obj.find(key);
  return it != obj.end() && it->is_string() ? it->get<std::string>() : fallback;
}

}  // namespace

int verdict_rank(std::string_view verdict) {
  const auto it = std::find(kOrder.begin(), kOrder.end(), verdict);
  return it == kOrder.end() ? -1 : static_cast<int>(it - kOrder.begin());
}

std::span<const std::string_view> all_verdicts() { return kOrder; }

bool is_bad(std::string_view verdict) {
  return verdict == "FAIL" || verdict == "TIMEOUT" || verdict == "CRASH" || verdict == "HAZARD";
}

void summarize(nlohmann::json &results) {
  if (!results.is_object()) throw std::runtime_error("results: the document is not a JSON object");
  auto &clauses = results["clauses"];
  if (clauses.is_null()) clauses = nlohmann::json::array();
  if (!clauses.is_array()) throw std::runtime_error("results: 'clauses' is not an array");

  std::map<std::string, std::string> case_verdict;
  bool any_xpass = false;
  if (const auto it = results.find("cases"); it != results.end() && it->is_array()) {
    for (const auto &c : *it) {
      const auto name = string_or(c, "name", "");
      const auto verdict = string_or(c, "verdict", "");
      if (!name.empty()) case_verdict[name] = verdict;
      any_xpass = any_xpass || verdict == "XPASS";
    }
  }

  std::map<std::string, int> by_verdict;
  for (const auto v : kOrder) by_verdict[std::string(v)] = 0;
  int must_total = 0, must_passed = 0, must_waived = 0;
  bool must_ok = true;
  for (auto &clause : clauses) {
    if (!clause.is_object()) throw std::runtime_error("results: an entry of 'clauses' is not an object");
    const std::string own = string_or(clause, "verdict", "");
    // A PROFILE is a judgement on the clause as a whole (its cases pass and
    // report what they saw), so it survives unless a case is worse.
    std::string worst = own == "PROFILE" ? own : "";
    bool has_case = false;
    if (const auto it = clause.find("cases"); it != clause.end() && it->is_array()) {
      for (const auto &name : *it) {
        if (!name.is_string()) continue;
        const auto found = case_verdict.find(name.get<std::string>());
        if (found == case_verdict.end() || verdict_rank(found->second) < 0) continue;
        has_case = true;
        if (worst.empty() || verdict_rank(found->second) > verdict_rank(worst)) worst = found->second;
      }
    }
    if (has_case) clause["verdict"] = worst;
    const std::string verdict = string_or(clause, "verdict", "");
    if (verdict_rank(verdict) >= 0) ++by_verdict[verdict];
    any_xpass = any_xpass || verdict == "XPASS";
    if (string_or(clause, "kind", "") == "MUST") {
      ++must_total;
      if (verdict == "PASS") ++must_passed;
      else if (verdict == "WAIVED") ++must_waived;
      else must_ok = false;
    }
  }

  const bool complete = string_or(results.value("run", nlohmann::json::object()), "status", "") == "complete";
  auto &summary = results["summary"];
  if (!summary.is_object()) summary = nlohmann::json::object();
  summary["by_verdict"] = by_verdict;
  summary["must_total"] = must_total;
  summary["must_passed"] = must_passed;
  summary["must_waived"] = must_waived;
  summary["gate"] = complete && must_ok && !any_xpass ? "pass" : "fail";
}

}  // namespace hcts::expectations
