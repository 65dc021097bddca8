// PMI-2 wire format (MPICH's "PMI-2 Wire Protocol" design, as Slurm's mpi/pmi2 plugin and Hydra serve it).
//
// After one PMI-1 style line ("cmd=init pmi_version=2 pmi_subversion=0\n", answered by a PMI-1 line
// "cmd=response_to_init ... rc=0"), every message is framed as
//     [6 ASCII characters: the body length in decimal, blank padded][body]
// and the body is "cmd=name;key1=value1;key2=value2;...;" — ';' terminates each pair, a ';' inside a key
// or value is doubled, nothing else is special (values may hold spaces, '=', newlines). Keys match
// [-_A-Za-z0-9]{1,64}. Replies are named "<cmd>-response" and carry rc (0 = success) and maybe errmsg.
#pragma once
#include <cstddef>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "boot/pmi_wire.h"  // pmi::Message
#include "util/status.h"

namespace ftmpi::boot::pmi2 {

inline constexpr std::size_t kHeaderLen = 6;
inline constexpr std::size_t kBodyMax = 64 * 1024;  // we never send or accept a longer message

// "cmd=<cmd>;k=v;...;" framed with its length header. Keys must be valid (assertion in debug builds);
// ';' in values is escaped.
std::string encode(std::string_view cmd,
                   std::initializer_list<std::pair<std::string_view, std::string_view>> fields = {});

// Decodes one body (without the header). Errc::arg naming the problem for anything malformed: no leading
// cmd=, a pair without '=', an invalid key, a dangling escape. Never crashes.
Result<pmi::Message> parse(std::string_view body);

// Splits a byte stream into bodies. Feed what read(2) returned; take complete bodies out.
class Reader {
 public:
  void append(const char* data, std::size_t n) { buf_.append(data, n); }
  // The next complete body; nullopt while incomplete; Errc::arg when the header is not a length (then the
  // stream is not PMI-2 and cannot be resynchronised: the caller gives up).
  Result<std::optional<std::string>> next();
  bool empty() const { return buf_.empty(); }

 private:
  std::string buf_;
};

}  // namespace ftmpi::boot::pmi2
