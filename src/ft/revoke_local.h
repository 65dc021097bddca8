// Revoke among members on one host (issue 13 target 6): which tree a revoker starts, and how its frames wake
// the receivers. The messages and their reliability are ft/revoke.h's; this file only chooses the radix of
// the revoker's own tree and orders the futex wake-ups of the shared-memory transport.
//
// Why. A revoke on 16 ranks of one 2-core host is not bound by messages but by the scheduler: every member
// sleeps on its futex doorbell (inside MPI_Recv, say) and must be woken and given a core. Down a 4-nomial
// tree an inner member forwards only once it has been scheduled, so the last leaf waits for two wake-ups in
// a row; and every frame's futex wake may pre-empt its sender (the woken rank takes the sender's core), so
// a sender with several children stalls between its sends.
//
// What. (1) A revoker whose members are all reached through this host's shared-memory transport starts a
// star (radix ≥ size): it publishes TREE(o, size) into every member's ring itself; nobody forwards, and no
// member's delivery depends on another member being scheduled. (2) The revoker's sends run with the
// transport's wakes held (ShmTransport::hold_wakes): every frame is in place before the first receiver is
// woken, so being pre-empted by a woken receiver delays no publication. (3) The wakes then spread as a tree
// (the *wake tree*, a kWakeRadix-nomial tree rooted at the revoker): the revoker rings its wake children
// first and then every member still asleep; a member that received TREE(o, k ≥ size) from o itself rings
// its own wake children that still sleep (help_wake). A ring costs a fence and a load when the member is
// awake, a futex wake when it sleeps; whoever of the 2 cores runs does the waking.
//
// Safety. Wakes carry nothing: every frame is delivered by the transport as before (a member that is rung
// before its frame is there — its frame went to the backlog of a full ring, or it woke on its own and
// rang early — wakes, finds nothing, and sleeps again; the frame's own ring wakes it later). The star is
// the state machine of ft/revoke.h with radix ≥ size, whose reliability does not depend on the radix, and
// the radix travels with the message (each tree is its origin's), so members that choose differently
// (another host in the communicator, FTMPI_TRANSPORT=tcp somewhere) still forward down one tree per
// origin (tests/sim/revoke_sim_test.cpp: RevokeSim.StarOnOneHost, ReliableWithMixedRadices).
//
// Cost. The revoker: size-1 ring writes, then up to size-1 futex wakes (fewer when helpers woke some
// first). A leaf: up to (kWakeRadix-1)·log_kWakeRadix(size) rings. Off one host nothing changes (the
// k-nomial tree of FtManager's radix, FTMPI_REVOKE_RADIX).
#pragma once

struct ftmpi_comm_s;

namespace ftmpi::transport {
class Router;
class ShmTransport;
}  // namespace ftmpi::transport

namespace ftmpi::ft {

inline constexpr int kWakeRadix = 4;

// The shared-memory transport through which this process reaches every other member of `c` (both groups of
// an intercommunicator, FtManager::revoke_member_index's numbering), or nullptr when some member is reached
// otherwise (another host, another job part, FTMPI_TRANSPORT=tcp) or `c` has no other member.
transport::ShmTransport* one_host_transport(transport::Router& router, const ftmpi_comm_s* c);

// The radix of the tree this process's own revoke of `c` starts: `members` (a star) when one_host_transport,
// else `radix`.
int own_revoke_radix(transport::Router& router, const ftmpi_comm_s* c, int members, int radix);

// Scope of one batch of revoke frames sent by member `me` of `c` (FtManager::flush_revoke): on one host,
// the wakes are held during the sends and released at the end of the scope, `me`'s wake children first.
class RevokeWakeBatch {
 public:
  RevokeWakeBatch(transport::Router& router, const ftmpi_comm_s* c, int me, int members);
  ~RevokeWakeBatch();
  RevokeWakeBatch(const RevokeWakeBatch&) = delete;
  RevokeWakeBatch& operator=(const RevokeWakeBatch&) = delete;

 private:
  transport::ShmTransport* shm_;
  const ftmpi_comm_s* c_;
  int me_;
  int members_;
};

// Member `me` of `c` received TREE(origin, radix) from `origin` itself: when that is a star on one host
// (radix ≥ members), ring me's children in origin's wake tree that still sleep.
void help_wake(transport::Router& router, const ftmpi_comm_s* c, int me, int origin, int radix, int members);

}  // namespace ftmpi::ft
