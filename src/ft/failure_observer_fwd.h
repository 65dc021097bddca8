// Forward declaration of ft::FailureObserver (ft/failure_observer.h) for failure_state.h, which must stay
// light: it is included by the p2p engine.
#pragma once

namespace ftmpi::ft {
class FailureObserver;
struct FailureRecord;
// Defined in ft/failure_observer.cpp: calls o->on_process_failed(rec).
void notify_failed(FailureObserver* o, const FailureRecord& rec);
}  // namespace ftmpi::ft
