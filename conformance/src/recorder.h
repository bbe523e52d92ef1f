// Rank 0's side of each case: every rank's evidence, carried by the MPI
// harness's agreement, merged into clause verdicts and written to results.json
// through the core's results writer; one console line per case.
#pragma once

#include <cstdint>
#include <string>

#include "hcts/core/run_spec.h"
#include "hcts/mpi_harness.h"

namespace hcts {

class Catalogue;
class ResultsWriter;

// What a reproducer must repeat to rerun a case as it ran: the run as the user
// gave it (seed and repetitions as they were drawn) and the configuration the
// case ran in.
struct RunShape {
    RunSpec run;
    std::string configuration = "plain";
};
// `<command> run --configs C --seed S ... --no-properties -- --gtest_filter=Case.Name`
std::string reproducer(const RunShape &shape, const std::string &case_name);

class Recorder {
  public:
    Recorder(ResultsWriter &writer, const Catalogue &catalogue, RunShape shape)
        : writer_(writer), catalogue_(catalogue), shape_(std::move(shape))
    {
    }
    // mpi::Options::on_case: a decided case, a TIMEOUT or a CRASH.
    void record(const mpi::CaseResult &r);

  private:
    ResultsWriter &writer_;
    const Catalogue &catalogue_;
    RunShape shape_;
};

} // namespace hcts
