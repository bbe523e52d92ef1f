#include "options.h"

#include <charconv>
#include <stdexcept>
#include <string_view>

namespace hcts {

Options &options()
{
    static Options o;
    return o;
}

std::string usage_text()
{
    return "hcts-conformance: judge an hcomm library clause by clause (run under mpirun -np 2 or more)\n"
           "  --iut PATH           library under test (default: the reference, <prefix>/lib/libhcomm.so)\n"
           "  --adapter PATH       platform adapter (default: <prefix>/lib/libhcts_adapter_ref.so)\n"
           "  --programs PATH      host build of the device programs (default: <prefix>/lib/libhcts_programs.so)\n"
           "  --results PATH       results.json to write (default: results/<run-id>/results.json)\n"
           "  --expectations PATH  expectation file waiving known failures of this IUT\n"
           "  --clauses PATH       clause catalogue (default: the one built in)\n"
           "  --seed N             seed of the randomised cases (default: from the clock, printed)\n"
           "  --repeat N           litmus repetitions per test (default 256)\n"
           "  --case-timeout S     watchdog deadline per case in seconds (default 120)\n"
           "  --summary PATH       print the clause summary of a results.json; exit status = its gate\n"
           "  --check-catalogue    check that every clause has a case and every case names known clauses\n"
           "  GoogleTest's flags (--gtest_filter=..., --gtest_list_tests, ...) work as usual.\n";
}

namespace {
uint64_t number(std::string_view flag, std::string_view v)
{
    uint64_t n = 0;
    auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
    if (ec != std::errc() || p != v.data() + v.size())
        throw std::invalid_argument(std::string(flag) + " needs a non-negative integer, got '" + std::string(v) + "'");
    return n;
}
} // namespace

void parse_options(int &argc, char **argv)
{
    Options &o = options();
    for (int i = 0; i < argc; ++i)
        o.command += (i != 0 ? " " : "") + std::string(argv[i]);
    int out = 1;
    for (int i = 1; i < argc; ++i) {
        const std::string_view a = argv[i];
        auto value = [&](std::string_view flag) -> std::string {
            if (a.size() > flag.size() && a.substr(0, flag.size()) == flag && a[flag.size()] == '=')
                return std::string(a.substr(flag.size() + 1));
            if (i + 1 >= argc)
                throw std::invalid_argument(std::string(flag) + " needs a value");
            return argv[++i];
        };
        auto is = [&](std::string_view flag) {
            return a == flag || (a.size() > flag.size() && a.substr(0, flag.size()) == flag && a[flag.size()] == '=');
        };
        if (is("--iut"))
            o.iut = value("--iut");
        else if (is("--adapter"))
            o.adapter = value("--adapter");
        else if (is("--programs"))
            o.programs = value("--programs");
        else if (is("--results"))
            o.results = value("--results");
        else if (is("--expectations"))
            o.expectations = value("--expectations");
        else if (is("--clauses"))
            o.clauses = value("--clauses");
        else if (is("--seed")) {
            o.seed = number("--seed", value("--seed"));
            o.seed_given = true;
        } else if (is("--repeat")) {
            o.repeat = static_cast<uint32_t>(number("--repeat", value("--repeat")));
            if (o.repeat == 0 || o.repeat > 1000000)
                throw std::invalid_argument("--repeat must be in 1..1000000, got " + std::to_string(o.repeat));
        } else if (is("--case-timeout")) {
            o.case_timeout_s = static_cast<uint32_t>(number("--case-timeout", value("--case-timeout")));
            if (o.case_timeout_s == 0)
                throw std::invalid_argument("--case-timeout must be at least 1 second");
        } else
            argv[out++] = argv[i];
    }
    argc = out;
    argv[argc] = nullptr;
}

} // namespace hcts
