// The one run of hcts-conformance in this process: what main() set up, and the
// case now running. Case bodies reach it through CaseFixture; every helper they
// call takes what it needs as arguments.
#pragma once

#include <memory>
#include <optional>

#include "case.h"
#include "evidence.h"
#include "hcts/core/adapter.h"
#include "hcts/core/catalogue.h"
#include "hcts/core/library.h"
#include "options.h"
#include "world.h"

namespace hcts {

struct Suite {
    Options options;
    Catalogue catalogue;
    std::unique_ptr<Library> iut;
    std::unique_ptr<Adapter> adapter;
    std::unique_ptr<World> world;
    // --segment-size: the IUT's segment size that transfers straddle, the same on
    // every rank (rank 0's); 0 when not asked for or unknown.
    uint64_t segment_size = 0;
    // The running case, from the listener's start until its evidence is handed on.
    const CaseSpec *spec = nullptr;
    std::optional<Evidence> evidence;
};

Suite &the_suite();

} // namespace hcts
