// Adversarial mode (SOFTVERBS_SEED): placeholder until the scheduler lands.
#include "sv.h"

namespace sv {

bool adversarial() { return false; }
void adversary_kick_locked() {}
void adversary_schedule_locked(Qp*) {}

}  // namespace sv
