// One run of the conformance suite (`hcts run [options] [-- gtest args]`) as a
// type: parsed from the words a user typed, printed back as words that parse to
// the same spec. A reproducer is a RunSpec narrowed to one case and printed.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace hcts {

// The configurations a run may name (./hcts run --configs), in run order.
inline constexpr std::string_view kRunConfigurations[] = {"plain", "segment", "adversarial", "peers"};

enum class RunScope { Default, Quick, Full }; // --quick, --full
enum class RunGate { Default, Strict };       // --gate

struct RunSpec {
    // The command as the user invoked it ("./hcts" from a source tree, "hcts"
    // installed); printed before "run", never parsed from the words.
    std::string command = "./hcts";
    std::string iut, adapter, expectations, results, reports, hostfile; // empty: not given
    std::vector<std::string> configurations;                            // empty: the scope's
    RunScope scope = RunScope::Default;
    uint32_t ranks = 2;
    std::optional<uint32_t> nodes, repeat, property_cases, jobs;
    std::optional<uint64_t> seed, segment_size;
    bool adversarial = false; // every configuration in softverbs' adversarial mode
    bool no_peek = false;
    bool properties = true;
    RunGate gate = RunGate::Default;
    std::vector<std::string> gtest_args; // after "--"

    bool operator==(const RunSpec &) const = default;
};

// The words after "run". Throws std::invalid_argument naming the option, the
// value and what is allowed; checks only what the words say (not whether a
// file exists on this machine: a spec may be read where it was not written).
RunSpec parse_run_spec(std::span<const std::string> words, std::string command = "./hcts");

// The canonical words after "run": only what differs from the defaults, in one
// fixed order, so parse_run_spec(run_spec_words(s)) == s.
std::vector<std::string> run_spec_words(const RunSpec &spec);

// "<command> run <words>", each word shell-quoted: what a user pastes to rerun.
std::string run_command_line(const RunSpec &spec);

// The configurations the run executes: those named, else the scope's.
std::vector<std::string> run_configurations(const RunSpec &spec);

// The command to name in reproducers: HCTS_COMMAND as the driver exported it
// (how the user invoked hcts), else "./hcts".
std::string invoked_command();

} // namespace hcts
