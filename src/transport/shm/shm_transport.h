// Shared-memory transport between ranks of one host.
//
// Set-up is split in phases so the router can interleave the fences of all transports:
//   create()   — before fence 1: make this rank's receive segment, publish its name in the KVS.
//   attach()   — after fence 1: map the segments of the local peers.
//   unlink()   — after fence 2 (everybody has mapped): remove our segment's name, so a killed job
//                leaves nothing in /dev/shm.
#pragma once
#include <memory>
#include <span>

#include "boot/bootstrap.h"
#include "transport/transport.h"

namespace ftmpi::transport {

class ShmTransport : public Transport {
 public:
  static Result<std::unique_ptr<ShmTransport>> create(boot::Bootstrap& boot);
  virtual Status attach(std::span<const int> local_world_ranks) = 0;  // includes my own rank
  virtual void unlink() = 0;
};

}  // namespace ftmpi::transport
