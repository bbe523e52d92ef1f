#include "bundle.h"

#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

#include <hcts/expectations.h>

#include "hcts/core/sha256.h"
#include "renderers.h"
#include "text.h"

namespace hcts::report {
namespace {

std::vector<std::string> mandatory_clauses(const results::Document &doc)
{
    std::vector<std::string> ids;
    for (const auto &c : doc.clauses)
        if (c.kind == ClauseKind::Must)
            ids.push_back(c.id);
    return ids;
}

// bundle.json (bundle.h): what the verifier reads of it.
struct BundleMeta {
    nlohmann::json schema, schema_version, gate, mandatory;
};

BundleMeta read_meta(const nlohmann::json &meta)
{
    const auto member = [&meta](const char *key) {
        return meta.is_object() && meta.contains(key) ? meta.at(key) : nlohmann::json();
    };
    return {member("schema"), member("schema_version"), member("gate"), member("mandatory")};
}

} // namespace

std::string make_bundle(const Run &run, const std::vector<TarMember> &extra, const std::string &created)
{
    nlohmann::json env = nlohmann::json::object();
    for (const char *key : {"run", "iut", "adapter", "environment"})
        if (run.doc.contains(key))
            env[key] = run.doc[key];
    const nlohmann::json meta = {{"schema", "hcts-bundle"},
                                 {"schema_version", 1},
                                 {"created", created},
                                 {"tool", "hcts-report " + std::string(report_version())},
                                 {"run_id", run.model.run.id},
                                 {"gate", run.model.summary ? text_or(run.model.summary->gate) : ""},
                                 {"mandatory", mandatory_clauses(run.model)}};
    std::vector<TarMember> members = {
        {"bundle.json", meta.dump(2) + "\n"}, {"results.json", run.bytes}, {"environment.json", env.dump(2) + "\n"}};
    for (const auto &f : extra)
        members.push_back(f);
    std::string sums;
    for (const auto &m : members)
        sums += hcts::sha256_hex(m.data) + "  " + m.name + "\n";
    members.push_back({"SHA256SUMS", sums});
    return write_tar(members, source_date_epoch_or(0));
}

VerifyResult verify_bundle(std::string_view archive)
{
    VerifyResult result;
    auto reject = [&](std::string why) {
        result.ok = false;
        result.reason = std::move(why);
        return result;
    };
    std::vector<TarMember> members;
    try {
        members = read_tar(archive);
    } catch (const std::runtime_error &e) {
        return reject(std::string("the archive is damaged: ") + e.what());
    }
    result.members = members.size();
    std::map<std::string, const TarMember *> by_name;
    for (const auto &m : members)
        by_name[m.name] = &m;
    for (const char *required : {"SHA256SUMS", "bundle.json", "results.json", "environment.json"})
        if (!by_name.contains(required))
            return reject(std::string("member '") + required + "' is missing");

    // Every member but the manifest is listed exactly once, with a matching digest.
    std::map<std::string, std::string> listed;
    std::istringstream sums(by_name["SHA256SUMS"]->data);
    std::string line;
    int line_no = 0;
    while (std::getline(sums, line)) {
        ++line_no;
        if (line.size() < 67 || line.compare(64, 2, "  ") != 0 || line.find_first_not_of("0123456789abcdef") < 64)
            return reject("SHA256SUMS line " + std::to_string(line_no) + " is not '<64 hex digits>  <name>'");
        const auto name = line.substr(66);
        if (!listed.emplace(name, line.substr(0, 64)).second)
            return reject("SHA256SUMS lists '" + name + "' twice");
    }
    for (const auto &m : members) {
        if (m.name == "SHA256SUMS")
            continue;
        const auto it = listed.find(m.name);
        if (it == listed.end())
            return reject("member '" + m.name + "' is not in SHA256SUMS");
        const auto actual = hcts::sha256_hex(m.data);
        if (actual != it->second)
            return reject("checksum mismatch for '" + m.name + "': SHA256SUMS says " + it->second +
                          ", the member hashes to " + actual);
        listed.erase(it);
    }
    if (!listed.empty())
        return reject("SHA256SUMS lists '" + listed.begin()->first + "', which is not in the bundle");

    results::Document doc;
    try {
        doc = results::read_document(parse_results(by_name["results.json"]->data, "results.json"));
    } catch (const std::runtime_error &e) {
        return reject(std::string("results.json is not a usable results document: ") + e.what());
    }
    BundleMeta meta;
    try {
        meta = read_meta(nlohmann::json::parse(by_name["bundle.json"]->data));
    } catch (const nlohmann::json::exception &e) {
        return reject(std::string("bundle.json is not JSON: ") + e.what());
    }
    if (meta.schema != "hcts-bundle")
        return reject("bundle.json: schema is '" + (meta.schema.is_string() ? meta.schema.get<std::string>() : "") +
                      "'; allowed: 'hcts-bundle'");
    if (!meta.schema_version.is_number_integer() || meta.schema_version.get<long long>() != 1)
        return reject("bundle.json: schema_version " + meta.schema_version.dump() +
                      " is not one this verifier reads; allowed: 1");

    const auto &status = doc.run.status;
    if (status != "complete")
        return reject("the run is '" + status + "', not 'complete': the mandatory clause set did not finish");
    if (doc.summary && !doc.summary->not_run.empty())
        return reject("summary.not_run lists " + std::to_string(doc.summary->not_run.size()) +
                      " clause(s) no case decided (first: " + doc.summary->not_run[0] +
                      "): the run was filtered or cut short");
    const auto mandatory = mandatory_clauses(doc);
    if (mandatory.empty())
        return reject("results.json has no MUST clause: nothing mandatory ran");
    if (nlohmann::json(mandatory) != meta.mandatory)
        return reject("bundle.json's mandatory clause list differs from the MUST clauses in results.json");
    std::set<std::string> recorded;
    for (const auto &k : doc.cases)
        recorded.insert(k.name);
    for (const auto &c : doc.clauses) {
        if (c.kind != ClauseKind::Must)
            continue;
        if (!c.verdict)
            return reject("MUST clause " + c.id + " has no verdict: it did not run");
        for (const auto &name : c.cases) {
            if (!recorded.contains(name))
                return reject("MUST clause " + c.id + " names case " + nlohmann::json(name).dump() +
                              ", which has no result");
        }
    }
    result.ok = true;
    result.mandatory = mandatory.size();
    // As the bundled report shows it (expectations applied).
    result.gate = meta.gate.is_string() ? meta.gate.get<std::string>() : "?";
    result.reason = "bundle intact: " + std::to_string(members.size()) + " members verified, " +
                    std::to_string(mandatory.size()) + " MUST clauses ran with a verdict (run " + doc.run.id +
                    ", gate " + result.gate + ")";
    return result;
}

} // namespace hcts::report
