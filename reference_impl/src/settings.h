// Every environment variable the reference (libhcomm.so) reads: one table, settings.cpp.
// env.cpp, log.cpp and profile.cpp read them through it; `hcts env` lists it.
#pragma once

#include <hcts/settings.h>

namespace hcomm_ref::settings {

using hcts::settings::Setting;

extern const Setting product;
extern const Setting log;
extern const Setting timeout_unit;
extern const Setting hccl_buffsize;
extern const Setting bootstrap_if;
extern const Setting bootstrap_timeout_s;
extern const Setting max_write;
extern const Setting notify;
extern const Setting ib_dev;
extern const Setting doorbell_completion;
extern const Setting poll_us;
extern const Setting notify_delay_ms;
extern const Setting split_reordered;
extern const Setting batch_reads;
extern const Setting reduce_order;
extern const Setting local_unregistered;
extern const Setting wait_report;
extern const Setting wwn_refusal;

// All of them, for `hcts env`: constant data, no side effect.
const hcts::settings::Table &table();

} // namespace hcomm_ref::settings
