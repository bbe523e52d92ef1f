// Submission bundles: one tar holding a run's results, its environment, the
// rendered report and a manifest of SHA-256 checksums, and the check that a
// bundle is intact and that its run decided every mandatory (MUST) clause.
//
// Members (in this order):
//   bundle.json          {"schema":"hcts-bundle","schema_version":1, created, tool, run_id, gate, mandatory:[ids]}
//   results.json         the results document exactly as the run wrote it
//   environment.json     run, iut, adapter and environment blocks of the results
//   report/<file>        report.html, summary.md, junit.xml (and anything else in the report directory)
//   expectations.yaml    the expectations file applied at report time, if any
//   SHA256SUMS           "<sha256>  <member>" for every other member, `sha256sum -c` compatible
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "results_io.h"
#include "ustar.h"

namespace hcts::report {

// `run` as loaded and prepared (its bytes are stored unchanged; the recorded
// gate is the prepared one); `extra` are the report/... and expectations members.
// Every member's mtime is SOURCE_DATE_EPOCH, or 0: the same inputs give the same bytes.
std::string make_bundle(const Run &run, const std::vector<TarMember> &extra, const std::string &created);

struct VerifyResult {
    bool ok = false;
    std::string reason; // the first problem found, or a one-line summary when ok
    std::size_t members = 0;
    std::size_t mandatory = 0; // MUST clauses, all with a verdict when ok
    std::string gate;          // the run's gate as recorded ("pass"/"fail"), for information
};

VerifyResult verify_bundle(std::string_view archive);

} // namespace hcts::report
