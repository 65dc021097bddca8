// The active messages of one-sided communication (src/rma/window.h), as they travel between an origin and
// a target over the window's private communicator (one: `req` and `rep` below are two tag spaces of it, so
// a window costs one context id slot, and 1000 windows at once fit; MPICH's rma/window_creation):
//
//   * `req` (tag kRequestTag; the target's service listens with one posted ANY_SOURCE receive): one message per
//     operation or synchronisation, an OpHdr followed by its inline part. The inline part is the target
//     type's runs (target_blocks Block each, when the target type is not contiguous) and then the packed
//     origin data. When header + inline part would exceed kInlineMax, the header carries `ext_tag` and
//     the inline part travels as a second message on `rep` with that tag (big puts: straight from the
//     origin buffer into the window when the target region is contiguous).
//   * `rep`: replies, always received by the origin with (source = target, tag = reply_tag): get data,
//     get_accumulate/fetch/compare-and-swap results, lock grants, flush/unlock acknowledgements (an
//     AckBody), and the PSCW post notices (tag kPostTag).
//
// Tags: an origin numbers its operations; reply tags are even (2k), extension tags odd (2k+1), so a reply
// to this process and a put extension from the same peer never match each other. kPostTag is 0.
// kRequestTag is above every reply and extension tag (those stay below 2^25 + 2), so the service's
// ANY_SOURCE receive takes requests only.
#pragma once
#include <cstddef>
#include <cstdint>

namespace ftmpi::rma {

enum class OpCode : std::uint8_t {
  put = 1, get, acc, get_acc, cas, lock, unlock, flush, complete,
};

inline constexpr int kPostTag = 0;
inline constexpr int kRequestTag = 1 << 30;
inline constexpr std::size_t kInlineMax = 12 * 1024;  // below the engine's 16 KiB eager limit

struct OpHdr {
  OpCode op;
  std::uint8_t lock_exclusive;  // lock
  std::uint8_t basic;           // acc/get_acc/cas: dt::Basic of the target type
  std::uint8_t op_kind;         // acc/get_acc: dt::OpKind
  std::int32_t reply_tag;       // 0: no reply wanted
  std::int32_t ext_tag;         // 0: the inline part follows the header in this message
  std::uint32_t target_blocks;  // runs of one target element (0: contiguous target type)
  std::uint64_t disp;           // target displacement in disp units (absolute address: dynamic windows)
  std::uint64_t count;          // target count (elements of the target type)
  std::uint64_t type_size;      // packed bytes of one target element
  std::int64_t type_extent;     // extent of the target type
  std::uint64_t data_bytes;     // packed origin data in the inline part
};
static_assert(sizeof(OpHdr) == 56);

struct WireBlock {
  std::int64_t offset;
  std::uint64_t length;
};

// Body of flush/unlock acknowledgements: the first error the target met with this origin's operations
// since the last acknowledgement (an Errc as int; 0 = none).
struct AckBody {
  std::int32_t errc;
  std::int32_t pad;
};

}  // namespace ftmpi::rma
