#include "hcts/core/run_spec.h"
#include "hcts/core/settings.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <limits>
#include <stdexcept>

#include "hcts/core/cli.h"

namespace hcts {
namespace {

template <typename T>
T parse_count(const std::string &option, const std::string &value, T min, const char *allowed)
{
    T out{};
    const char *end = value.data() + value.size();
    const auto [ptr, ec] = std::from_chars(value.data(), end, out);
    // from_chars takes no sign and no spaces; "" and "+1" fail here too.
    if (value.empty() || ec != std::errc() || ptr != end || out < min)
        throw CLI::ValidationError(option, "must be " + std::string(allowed) + ", got '" + value + "'");
    return out;
}

std::vector<std::string> split_configurations(const std::string &list)
{
    std::vector<std::string> out;
    size_t start = 0;
    while (true) {
        const size_t comma = list.find(',', start);
        out.push_back(list.substr(start, comma - start));
        if (comma == std::string::npos)
            break;
        start = comma + 1;
    }
    std::string allowed;
    for (std::string_view c : kRunConfigurations)
        allowed += (allowed.empty() ? "" : ", ") + std::string(c);
    for (size_t i = 0; i < out.size(); ++i) {
        if (std::find(std::begin(kRunConfigurations), std::end(kRunConfigurations), out[i]) ==
            std::end(kRunConfigurations))
            throw CLI::ValidationError("--configs",
                                       "unknown configuration '" + out[i] + "' in '" + list + "'; allowed: " + allowed);
        if (std::find(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(i), out[i]) !=
            out.begin() + static_cast<std::ptrdiff_t>(i))
            throw CLI::ValidationError("--configs", "names '" + out[i] + "' twice in '" + list + "'");
    }
    return out;
}

std::string joined(const std::vector<std::string> &words, const char *sep)
{
    std::string out;
    for (const auto &w : words)
        out += (out.empty() ? "" : sep) + w;
    return out;
}

} // namespace

RunSpec parse_run_spec(std::span<const std::string> words, std::string command)
{
    RunSpec s;
    s.command = std::move(command);
    // Everything after the first "--" goes to GoogleTest untouched.
    const auto dashes = std::find(words.begin(), words.end(), "--");
    if (dashes != words.end())
        s.gtest_args.assign(dashes + 1, words.end());

    CLI::App app{"hcts run"};
    app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast); // as the driver: last wins
    app.add_option("--iut", s.iut);
    app.add_option("--adapter", s.adapter);
    app.add_option("--expectations", s.expectations);
    app.add_option("--results", s.results);
    app.add_option("--reports", s.reports);
    app.add_option("--hostfile", s.hostfile);
    app.add_option_function<std::string>(
        "--np", [&](const std::string &v) { s.ranks = parse_count<uint32_t>("--np", v, 2, "2 or more"); });
    app.add_option_function<std::string>("--nodes", [&](const std::string &v) {
        s.nodes = parse_count<uint32_t>("--nodes", v, 1, "a positive integer");
    });
    app.add_option_function<std::string>("--repeat", [&](const std::string &v) {
        s.repeat = parse_count<uint32_t>("--repeat", v, 1, "a positive integer");
    });
    app.add_option_function<std::string>("--property-cases", [&](const std::string &v) {
        s.property_cases = parse_count<uint32_t>("--property-cases", v, 1, "a positive integer");
    });
    app.add_option_function<std::string>("--jobs", [&](const std::string &v) {
        s.jobs = parse_count<uint32_t>("--jobs", v, 1, "1 or 2 (lanes of configurations)");
        if (*s.jobs > 2)
            throw CLI::ValidationError("--jobs", "must be 1 or 2 (lanes of configurations), got '" + v + "'");
    });
    app.add_option_function<std::string>("--seed", [&](const std::string &v) {
        s.seed = parse_count<uint64_t>("--seed", v, 0, "a non-negative integer below 2^64");
    });
    app.add_option_function<std::string>("--segment-size", [&](const std::string &v) {
        s.segment_size = parse_count<uint64_t>("--segment-size", v, 1, "a positive byte count");
    });
    app.add_option_function<std::string>("--configs",
                                         [&](const std::string &v) { s.configurations = split_configurations(v); });
    app.add_option_function<std::string>("--gate", [&](const std::string &v) {
        if (v != "default" && v != "strict")
            throw CLI::ValidationError("--gate", "must be default or strict, got '" + v + "'");
        s.gate = v == "strict" ? RunGate::Strict : RunGate::Default;
    });
    bool quick = false, full = false, no_properties = false;
    CLI::Option *quick_flag = app.add_flag("--quick", quick);
    app.add_flag("--full", full)->excludes(quick_flag);
    app.add_flag("--adversarial", s.adversarial);
    app.add_flag("--no-peek", s.no_peek);
    app.add_flag("--no-properties", no_properties);

    // CLI11 reads its vector back to front.
    std::vector<std::string> args(words.begin(), dashes);
    std::reverse(args.begin(), args.end());
    try {
        app.parse(args);
    } catch (const CLI::ParseError &e) {
        throw std::invalid_argument(std::string("run: ") + e.what());
    }
    if (!s.hostfile.empty() && s.nodes)
        throw std::invalid_argument("run: --hostfile and --nodes exclude each other");
    s.scope = quick ? RunScope::Quick : full ? RunScope::Full : RunScope::Default;
    s.properties = !no_properties;
    return s;
}

std::vector<std::string> run_spec_words(const RunSpec &s)
{
    std::vector<std::string> w;
    const auto text = [&](const char *option, const std::string &value) {
        if (!value.empty())
            w.insert(w.end(), {option, value});
    };
    const auto number = [&](const char *option, const auto &value) {
        if (value)
            w.insert(w.end(), {option, std::to_string(*value)});
    };
    text("--iut", s.iut);
    text("--adapter", s.adapter);
    text("--expectations", s.expectations);
    text("--results", s.results);
    text("--reports", s.reports);
    if (s.ranks != 2)
        w.insert(w.end(), {"--np", std::to_string(s.ranks)});
    text("--hostfile", s.hostfile);
    number("--nodes", s.nodes);
    if (s.scope != RunScope::Default)
        w.emplace_back(s.scope == RunScope::Quick ? "--quick" : "--full");
    if (!s.configurations.empty())
        w.insert(w.end(), {"--configs", joined(s.configurations, ",")});
    number("--segment-size", s.segment_size);
    number("--jobs", s.jobs);
    number("--repeat", s.repeat);
    if (s.adversarial)
        w.emplace_back("--adversarial");
    number("--seed", s.seed);
    if (s.gate == RunGate::Strict)
        w.insert(w.end(), {"--gate", "strict"});
    if (s.no_peek)
        w.emplace_back("--no-peek");
    if (!s.properties)
        w.emplace_back("--no-properties");
    number("--property-cases", s.property_cases);
    if (!s.gtest_args.empty()) {
        w.emplace_back("--");
        w.insert(w.end(), s.gtest_args.begin(), s.gtest_args.end());
    }
    return w;
}

std::string run_command_line(const RunSpec &s)
{
    std::string out = shell_quote(s.command) + " run";
    for (const auto &word : run_spec_words(s))
        out += " " + shell_quote(word);
    return out;
}

std::vector<std::string> run_configurations(const RunSpec &s)
{
    if (!s.configurations.empty())
        return s.configurations;
    if (s.scope == RunScope::Quick)
        return {"plain"};
    return {std::begin(kRunConfigurations), std::end(kRunConfigurations)};
}

std::string invoked_command() { return settings::get_string(suite_settings::command).value; }

} // namespace hcts
