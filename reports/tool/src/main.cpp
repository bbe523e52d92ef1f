// hcts-report: the command line (CLI11). The work is in the library (renderers.h, bundle.h).
// Exit status: 0 done (or the gate passed), 1 an error or a failed gate / bundle, 2 a usage error.
#include <algorithm>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "hcts/core/cli.h"
#include "hcts/core/files.h"

#include <hcts/expectations.h>

#include "hcts/core/results.h"

#include "bundle.h"
#include "renderers.h"
#include "results_io.h"
#include "text.h"

namespace fs = std::filesystem;
using namespace hcts::report;

namespace {

constexpr int kUsageStatus = 2;

struct Options {
    std::optional<std::string> out, expectations, report_dir, selftest;
    bool gate = false;
    std::vector<std::string> inputs; // the results files, or verify's bundle
};

// A command line that names something this tool does not take.
struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

std::string now_utc() { return format_utc(source_date_epoch_or(static_cast<long long>(std::time(nullptr)))); }

std::optional<hcts::expectations::ExpectationSet> load_expectations(const Options &o)
{
    if (!o.expectations)
        return std::nullopt;
    return hcts::expectations::ExpectationSet::load(*o.expectations);
}

std::vector<TarMember> render_all(std::vector<Run> &runs, const Options &o)
{
    const auto set = load_expectations(o);
    prepare_runs(runs, set ? &*set : nullptr);
    std::optional<nlohmann::json> selftest;
    if (o.selftest) {
        selftest = hcts::read_json_file(*o.selftest);
        if (!selftest->is_object() || selftest->value("schema", "") != "hcts-selftest")
            throw std::runtime_error(*o.selftest + ": not a selftest.json (schema is not \"hcts-selftest\")");
        if (selftest->value("schema_version", 0) > 1)
            throw std::runtime_error(*o.selftest + ": schema_version " + selftest->at("schema_version").dump() +
                                     " is newer than this tool reads (1)");
    }
    const RenderInfo info{now_utc(), o.expectations.value_or(""), selftest ? &*selftest : nullptr};
    return {{"report.html", render_html(runs, info)},
            {"summary.md", render_markdown(runs, info)},
            {"junit.xml", render_junit(runs, info)}};
}

int cmd_render(const Options &o)
{
    std::vector<Run> runs;
    for (const auto &p : o.inputs)
        runs.push_back(load_run(p));
    const auto files = render_all(runs, o);
    const fs::path dir = o.out.value_or(".");
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec)
        throw std::runtime_error(dir.string() + ": cannot create the output directory: " + ec.message());
    for (const auto &f : files) {
        const auto path = (dir / f.name).string();
        hcts::files::write_atomic(path, f.data);
        std::cout << "hcts-report: wrote " << path << "\n";
    }
    auto overall = overall_verdict(runs);
    if (o.selftest) {
        const auto st = selftest_verdict(hcts::read_json_file(*o.selftest));
        std::cout << "hcts-report: suite strength " << st << "\n";
        if (runs.empty() || st != "PASS")
            overall = runs.empty() ? st : "FAIL";
    }
    std::cout << "hcts-report: overall verdict " << overall << " (" << runs.size()
              << (runs.size() == 1 ? " run" : " runs") << (o.selftest ? " and a self-test)" : ")") << "\n";
    return o.gate && overall != "PASS" ? 1 : 0;
}

int cmd_apply(const Options &o)
{
    std::vector<Run> runs{load_run(o.inputs.at(0))};
    const auto set = load_expectations(o);
    prepare_runs(runs, set ? &*set : nullptr);
    const auto text = runs[0].doc.dump(2) + "\n";
    if (o.out) {
        hcts::files::write_atomic(*o.out, text);
        std::cerr << "hcts-report: wrote " << *o.out << "\n";
    } else {
        std::cout << text;
    }
    const auto gate = gate_of(runs[0]);
    std::cerr << "hcts-report: gate " << gate << "\n";
    return o.gate && gate != "PASS" ? 1 : 0;
}

// Adds property runs' properties, and conformance runs of other configurations,
// to a run's results document, in place.
int cmd_merge(const Options &o)
{
    const std::string &into = o.out.value();
    nlohmann::json doc = hcts::read_json_file(into);
    int properties = 0, configurations = 0;
    for (const auto &p : o.inputs) {
        const nlohmann::json other = hcts::read_json_file(p);
        const nlohmann::json run = other.is_object() ? other.value("run", nlohmann::json::object()) : nlohmann::json();
        // A conformance run that names its configuration joins as one; anything else adds its properties.
        if (run.is_object() && run.value("kind", "") == "conformance" && run.contains("configuration")) {
            hcts::merge_configuration(doc, other);
            ++configurations;
        } else {
            hcts::merge_properties(doc, other);
            ++properties;
        }
    }
    hcts::files::write_atomic(into, doc.dump(2) + "\n");
    const auto gate = doc.at("summary").value("gate", "fail");
    std::cerr << "hcts-report: merged " << properties << " property run(s) and " << configurations
              << " configuration run(s) into " << into << "; gate " << gate << "\n";
    return o.gate && gate != "pass" ? 1 : 0;
}

int cmd_bundle(const Options &o)
{
    std::vector<Run> runs{load_run(o.inputs.at(0))};
    std::vector<TarMember> extra;
    if (o.report_dir) {
        const fs::path dir = *o.report_dir;
        if (!fs::is_directory(dir))
            throw std::runtime_error(dir.string() + ": not a directory (the report directory to bundle)");
        std::vector<fs::path> files;
        for (const auto &entry : fs::directory_iterator(dir))
            if (entry.is_regular_file() && entry.path().extension() != ".tmp")
                files.push_back(entry.path());
        std::sort(files.begin(), files.end());
        if (std::none_of(files.begin(), files.end(), [](const fs::path &p) { return p.filename() == "report.html"; }))
            throw std::runtime_error(dir.string() + ": has no report.html; render it first or leave the directory out");
        // The recorded gate still comes from the prepared run, so apply expectations the same way.
        const auto set = load_expectations(o);
        prepare_runs(runs, set ? &*set : nullptr);
        for (const auto &p : files)
            extra.push_back({"report/" + p.filename().string(), read_file(p.string())});
    } else {
        for (auto &f : render_all(runs, o))
            extra.push_back({"report/" + f.name, std::move(f.data)});
    }
    if (o.expectations)
        extra.push_back({"expectations.yaml", read_file(*o.expectations)});
    hcts::files::write_atomic(o.out.value(), make_bundle(runs[0], extra, now_utc()));
    std::cout << "hcts-report: wrote " << *o.out << " (" << extra.size() + 4 << " members)\n";
    return 0;
}

int cmd_verify(const Options &o)
{
    const auto &path = o.inputs.at(0);
    const auto result = verify_bundle(read_file(path));
    if (!result.ok) {
        std::cerr << "hcts-report: verify " << path << ": REJECTED: " << result.reason << "\n";
        return 1;
    }
    std::cout << "hcts-report: verify " << path << ": OK: " << result.reason << "\n";
    return 0;
}

// The options of one command, as a person types them, for "allowed: ..." in messages.
std::string allowed_options(const CLI::App &app)
{
    std::string list;
    for (const auto *opt : app.get_options()) {
        if (opt->get_positional())
            continue;
        list += (list.empty() ? "" : ", ") + opt->get_name();
        if (opt->get_type_size_max() > 0 && !opt->get_type_name().empty())
            list += " " + opt->get_type_name();
    }
    return list;
}

std::string allowed_arguments(const CLI::App &app)
{
    std::string list;
    for (const auto *opt : app.get_options()) {
        if (!opt->get_positional())
            continue;
        list += (list.empty() ? "" : " ") + std::string(opt->get_required() ? "" : "[") + opt->get_name() +
                (opt->get_items_expected_max() > 1 ? "..." : "") + (opt->get_required() ? "" : "]");
    }
    return list.empty() ? "none" : list;
}

std::string allowed_commands(const CLI::App &app)
{
    std::string list;
    for (const auto *cmd : app.get_subcommands([](const CLI::App *) { return true; }))
        list += (list.empty() ? "" : ", ") + cmd->get_name();
    return list;
}

// CLI11 keeps what it could not place (allow_extras); say what it is and what the command takes.
void reject_leftovers(const CLI::App &app)
{
    auto left = app.remaining();
    std::erase(left, "--"); // the end-of-options mark, kept by CLI11 with the extras
    if (left.empty())
        return;
    const std::string &word = left.front();
    if (word.size() > 1 && word[0] == '-')
        throw UsageError("unknown option '" + word + "'; allowed: " + allowed_options(app));
    if (!app.get_parent())
        throw UsageError("unknown command '" + word + "'; allowed: " + allowed_commands(app));
    throw UsageError("unexpected argument '" + word + "'; " + app.get_name() + " takes: " + allowed_arguments(app));
}

int usage_error(const CLI::App &app, const std::string &message)
{
    const auto subs = app.get_subcommands();
    const std::string cmd = subs.empty() ? "" : " " + subs.front()->get_name();
    std::cerr << "hcts-report" << cmd << ": " << message << "\n"
              << "run 'hcts-report" << cmd << " --help' for the options\n";
    return kUsageStatus;
}

} // namespace

int main(int argc, char **argv)
{
    CLI::App app{"hcts-report: HTML, Markdown and JUnit reports of hcts results documents, and submission bundles",
                 "hcts-report"};
    app.set_version_flag("--version", "hcts-report " + std::string(report_version()) + " (reads hcts-results v1)");
    app.footer("Details: reports/README.md. Exit status: 0 done, 1 error or failed gate, 2 usage error.");
    // Unknown words are kept, not thrown, so the message can name them with what is allowed.
    app.allow_extras();
    // One command a call: after it, a word such as "verify" is an argument (a file
    // or help's topic), not a second command.
    app.require_subcommand(0, 1);

    Options o;
    // The same option means the same thing in every command that takes it. Given
    // twice, the last value counts, as with the hand-written parser before.
    auto out = [&](CLI::App *cmd, const std::string &type, const std::string &help) {
        return cmd
            ->add_option_function<std::string>(
                "--out", [&](const std::string &v) { o.out = v; }, help)
            ->type_name(type)
            ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
    };
    auto expectations = [&](CLI::App *cmd) {
        cmd->add_option_function<std::string>(
               "--expectations", [&](const std::string &v) { o.expectations = v; },
               "apply this expectations file (known failures, reports/README.md) first")
            ->type_name("FILE")
            ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
    };
    auto gate = [&](CLI::App *cmd, const std::string &help) { cmd->add_flag("--gate", o.gate, help); };
    // A single file: one string, so a second one is left over and named in the error.
    auto one_input = [&](CLI::App *cmd, const std::string &name, const std::string &help) {
        return cmd
            ->add_option_function<std::string>(
                name, [&](const std::string &v) { o.inputs.push_back(v); }, help)
            ->required();
    };

    auto *render = app.add_subcommand("render", "write report.html, summary.md and junit.xml; several results files "
                                                "give a comparison of the runs");
    out(render, "DIR", "where the three files go (default: .)");
    expectations(render);
    gate(render, "exit 1 unless every run passes its gate");
    render
        ->add_option_function<std::string>(
            "--selftest", [&](const std::string &v) { o.selftest = v; },
            "add the Suite strength section of this selftest.json (hcts-selftest); RESULTS.json may then be left out")
        ->type_name("SELFTEST.json")
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
    render->add_option("RESULTS.json", o.inputs, "results documents, one per run");

    auto *apply = app.add_subcommand("apply", "the results document with expectations applied and clause verdicts "
                                              "and summary recomputed");
    out(apply, "OUT.json", "write it here (default: standard output)");
    expectations(apply);
    gate(apply, "exit 1 if its gate fails");
    one_input(apply, "RESULTS.json", "the results document");

    auto *merge = app.add_subcommand("merge", "add property runs' properties, and conformance runs of other "
                                              "configurations (run.configuration), to a run's results document (in "
                                              "place), so they gate together");
    merge
        ->add_option_function<std::string>(
            "--into", [&](const std::string &v) { o.out = v; }, "the results document to add to")
        ->type_name("RESULTS.json")
        ->required();
    gate(merge, "exit 1 if the merged gate fails");
    merge
        ->add_option("RUN.json", o.inputs,
                     "results documents of hcts-property runs or of hcts-conformance runs "
                     "in another configuration")
        ->required();

    auto *bundle = app.add_subcommand("bundle", "a submission bundle (ustar): results, environment, report and "
                                                "SHA256SUMS over every member");
    out(bundle, "FILE.tar", "the bundle to write")->required();
    expectations(bundle);
    one_input(bundle, "RESULTS.json", "the results document");
    bundle->add_option_function<std::string>(
        "REPORT_DIR", [&](const std::string &v) { o.report_dir = v; },
        "a rendered report to bundle (default: render it now)");

    auto *verify = app.add_subcommand("verify", "check a bundle: every checksum, nothing unlisted, and that every MUST "
                                                "clause ran with a verdict; exit 1 with the reason if not");
    one_input(verify, "BUNDLE.tar", "the bundle");

    std::string topic;
    auto *help = app.add_subcommand("help", "print this help, or a command's");
    help->add_option("COMMAND", topic, "a command")
        ->check(CLI::IsMember({"render", "apply", "merge", "bundle", "verify"}));

    try {
        app.parse(argc, argv);
        reject_leftovers(app);
        if (app.get_subcommands().empty())
            throw UsageError("no command given; allowed: " + allowed_commands(app));
        for (const auto *sub : app.get_subcommands())
            reject_leftovers(*sub);
        if (render->parsed() && o.inputs.empty() && !o.selftest)
            throw UsageError("RESULTS.json is required (or --selftest SELFTEST.json)");
    } catch (const CLI::Success &e) { // --help, --version
        return app.exit(e);
    } catch (const CLI::ParseError &e) {
        return usage_error(app, e.what());
    } catch (const UsageError &e) {
        return usage_error(app, e.what());
    } catch (const std::exception &e) {
        std::cerr << "hcts-report: error: " << e.what() << "\n";
        return 1;
    }

    try {
        if (render->parsed())
            return cmd_render(o);
        if (apply->parsed())
            return cmd_apply(o);
        if (bundle->parsed())
            return cmd_bundle(o);
        if (merge->parsed())
            return cmd_merge(o);
        if (verify->parsed())
            return cmd_verify(o);
        std::cout << (topic.empty() ? app.help() : app.get_subcommand(topic)->help(app.get_name()));
        return 0;
    } catch (const std::exception &e) {
        std::cerr << "hcts-report: error: " << e.what() << "\n";
        return 1;
    }
}
