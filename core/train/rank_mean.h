// Values averaged over a run's ranks, each rank having seen its own micro-batches: the logged metrics of the
// preference objectives (as TRL gathers them) and KTO's KL estimate. A NaN (a KTO label a rank did not see) counts on
// no rank; a value no rank has stays NaN. Collective: every rank calls it with the same number of values.
// LibTorch header (through the communicator): include it from core/train sources only.
#pragma once
#include <map>
#include <string>
#include <vector>

namespace fts {

class Communicator;

using NamedValues = std::map<std::string, double>;  // metric name -> value

std::vector<double> meanOverRanks(Communicator& comm, std::vector<double> values);
NamedValues meanOverRanks(Communicator& comm, NamedValues values);

}  // namespace fts
