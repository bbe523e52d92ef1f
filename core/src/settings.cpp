// The suite's settings: every environment variable its own programs read, declared once
// (name, type, default, allowed values, one line of doc). Constant data: `hcts env` links
// this file alone.
#include "hcts/core/settings.h"

#include <hcts/mutant.h>

namespace hcts::suite_settings {

using hcts::settings::Table;
using hcts::settings::Type;

// clang-format off
constinit const Setting command{"HCTS_COMMAND", Type::string, "./hcts",
    "how the user called hcts, as reproducers name it (set by the hcts script)", "a command"};
constinit const Setting suite_commit{"HCTS_SUITE_COMMIT", Type::string, "",
    "the suite's commit recorded in results.json (set by the hcts script; unset: none recorded)", "any text"};
constinit const Setting mpi_log_dir{"HCTS_MPI_LOG_DIR", Type::path, "hcts-mpi-logs",
    "where the MPI harness writes one log per rank (set at all: the programs keep it instead of beside "
    "results.json)", "a directory"};
constinit const Setting case_deadline_s{"HCTS_CASE_DEADLINE_S", Type::string, "120",
    "the watchdog's deadline of one case, in seconds, when the program gives none", "a number of seconds in (0, 86400]"};
constinit const Setting protocol{"HCTS_PROTOCOL", Type::string, "",
    "the channel protocol of the conformance cases (unset: the engine's first in spec/products.yaml)",
    "a protocol name of spec/products.yaml (UB_CTP, UBOE, ROCE, HCCS...)"};
constinit const Setting protocol_alt{"HCTS_PROTOCOL_ALT", Type::string, "",
    "the alternate channel protocol of the conformance cases (unset: the engine's second, else its first)",
    "a protocol name of spec/products.yaml"};
constinit const Setting property_protocol{"HCTS_PROPERTY_PROTOCOL", Type::enumeration, "ub_ctp",
    "the channel protocol of the property suite's hcomm driver", "ub_ctp|uboe|roce"};
constinit const Setting exhaustive{"HCTS_EXHAUSTIVE", Type::string, "",
    "set at all (any value): cases sweep every value (every notify count 1..64), not the edges", "set or unset"};
constinit const Setting source_date_epoch{"SOURCE_DATE_EPOCH", Type::integer, "",
    "the time results.json records, in seconds since 1970 (reproducible-builds.org; unset: now)", "", INT64_MIN,
    INT64_MAX};
constinit const Setting hccl_buffsize{"HCCL_BUFFSIZE", Type::uint, "200",
    "HCCL's buffer setting in MB: the conformance suite expects HcclGetHcclBuffer to report twice it (API.BUF.2)",
    "", 1, 1U << 20};
// clang-format on

const Table &table()
{
    static const Setting *const all[] = {&command,           &suite_commit,  &mpi_log_dir,         &case_deadline_s,
                                         &protocol,          &protocol_alt,  &property_protocol,   &exhaustive,
                                         &source_date_epoch, &hccl_buffsize, &hcts::mutant_setting};
    static const Table t{"suite", "hcts-conformance, hcts-property, hcts-bench, hcts-selftest, the MPI harness", all};
    return t;
}

} // namespace hcts::suite_settings
