// Every environment variable the suite's own programs read (hcts-conformance, hcts-property,
// hcts-bench, hcts-selftest, the MPI harness, the results writer): one table, core/src/settings.cpp
// (hcts::suite_settings). The mutant switch is in hcts/mutant.h. `hcts env` lists it.
#pragma once

#include <hcts/settings.h>

namespace hcts::suite_settings {

using hcts::settings::Setting;

extern const Setting command;
extern const Setting suite_commit;
extern const Setting mpi_log_dir;
extern const Setting case_deadline_s;
extern const Setting protocol;
extern const Setting protocol_alt;
extern const Setting property_protocol;
extern const Setting exhaustive;
extern const Setting source_date_epoch;
extern const Setting hccl_buffsize; // HCCL's; the conformance suite reads it to know the size expected

// All of them (and HCTS_MUTANT), for `hcts env`: constant data, no side effect.
const hcts::settings::Table &table();

} // namespace hcts::suite_settings
