// results.h: the property run as an hcts-results v1 document (reports/schema),
// run.kind = "property", one entry per property in `properties`. Rewritten
// atomically after every property so an interrupted run keeps what it decided.
#pragma once

#include <string>
#include <vector>

#include "machine/properties.h"

namespace hcts::prop {

struct RunInfo {
  std::string command;       // the exact command line of this run
  std::string iutPath;       // empty for the simulator
  std::string iutName;       // "reference", "sim", or the library's file name
  std::string product;       // e.g. atlas350
  std::string mode;          // "plain" or "adversarial"
  long long softverbsSeed = -1;  // -1: not on softverbs / not set
  uint32_t ranks = 2;
  std::string transport;
};

class ResultsFile {
 public:
  ResultsFile(std::string path, RunInfo info);
  void add(const PropertyOutcome &o, const std::string &reproduceCommand);
  void finish(bool complete);

 private:
  void write(const std::string &status);

  std::string path_;
  RunInfo info_;
  std::string id_, started_;
  std::vector<PropertyOutcome> outcomes_;
  std::vector<std::string> commands_;
};

std::string isoNow();

}  // namespace hcts::prop
