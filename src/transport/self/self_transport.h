// Frames a rank sends to itself: queued in memory and delivered at the next poll. remote_read is memcpy,
// so large self-messages take the single-copy rendezvous path like shared memory does.
#pragma once
#include <memory>

#include "transport/transport.h"

namespace ftmpi::transport {
std::unique_ptr<Transport> make_self_transport(int my_world_rank);
}
