#include "ft/failure_observer.h"

namespace ftmpi::ft {
void notify_failed(FailureObserver* o, const FailureRecord& rec) { o->on_process_failed(rec); }
}  // namespace ftmpi::ft
