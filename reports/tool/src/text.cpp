#include "text.h"

#include <cmath>
#include <cstdio>

namespace hcts::report {

std::string html_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default:
        // Control characters other than tab and newline are not allowed in XML 1.0.
        if (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t') out += "\xEF\xBF\xBD";
        else out += c;
    }
  }
  return out;
}

std::string md_escape(std::string_view text) {
  std::string out;
  for (const char c : text) {
    if (c == '|') out += "\\|";
    else if (c == '\n' || c == '\r') out += ' ';
    else if (c == '<') out += "&lt;";
    else out += c;
  }
  return out;
}

std::string field(const nlohmann::json &obj, std::string_view key, std::string_view fallback) {
  if (!obj.is_object()) return std::string(fallback);
  const auto it = obj.find(key);
  if (it == obj.end()) return std::string(fallback);
  if (it->is_string()) return it->get<std::string>();
  if (it->is_number_unsigned()) return std::to_string(it->get<unsigned long long>());  // 64-bit seeds
  if (it->is_number_integer()) return std::to_string(it->get<long long>());
  if (it->is_number()) return format_fixed(it->get<double>(), 3);
  if (it->is_boolean()) return it->get<bool>() ? "true" : "false";
  return std::string(fallback);
}

const nlohmann::json &object_at(const nlohmann::json &obj, std::string_view key) {
  static const nlohmann::json empty = nlohmann::json::object();
  if (!obj.is_object()) return empty;
  const auto it = obj.find(key);
  return it != obj.end() && it->is_object() ? *it : empty;
}

const nlohmann::json &array_at(const nlohmann::json &obj, std::string_view key) {
  static const nlohmann::json empty = nlohmann::json::array();
  if (!obj.is_object()) return empty;
  const auto it = obj.find(key);
  return it != obj.end() && it->is_array() ? *it : empty;
}

const nlohmann::json *deciding_case(const nlohmann::json &doc, const nlohmann::json &clause) {
  const auto verdict = field(clause, "verdict");
  for (const auto &name : array_at(clause, "cases")) {
    if (!name.is_string()) continue;
    for (const auto &c : array_at(doc, "cases"))
      if (field(c, "name") == name.get<std::string>() && field(c, "verdict") == verdict) return &c;
  }
  return nullptr;
}

std::string clause_reason(const nlohmann::json &doc, const nlohmann::json &clause) {
  if (auto own = field(clause, "reason"); !own.empty()) return own;
  const auto *c = deciding_case(doc, clause);
  if (!c) return {};
  const auto reason = field(*c, "reason");
  return reason.empty() ? std::string() : field(*c, "name") + ": " + reason;
}

const nlohmann::json &clause_waiver(const nlohmann::json &doc, const nlohmann::json &clause) {
  if (const auto &own = object_at(clause, "waiver"); !own.empty()) return own;
  const auto *c = deciding_case(doc, clause);
  return c ? object_at(*c, "waiver") : object_at(clause, "waiver");
}

std::string format_fixed(double value, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, value);
  return buf;
}

std::string format_seconds(double seconds) {
  if (seconds < 10) return format_fixed(seconds, 3) + " s";
  if (seconds < 120) return format_fixed(seconds, 1) + " s";
  const auto whole = static_cast<long long>(std::llround(seconds));
  return std::to_string(whole / 60) + " min " + std::to_string(whole % 60) + " s";
}

}  // namespace hcts::report
