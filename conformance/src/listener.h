// The GoogleTest listener that turns each test into a case verdict agreed by all
// ranks, written to results.json by rank 0, with a watchdog per case.
#pragma once

#include <gtest/gtest.h>

#include <memory>

#include "results.h"

namespace hcts {

// Installs the listener (and removes GoogleTest's printer on ranks other than 0).
// `results` is null on ranks other than 0.
void install_listener(Results *results);

} // namespace hcts
