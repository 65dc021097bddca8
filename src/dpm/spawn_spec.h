// What MPI_Comm_spawn(_multiple) asks the launcher for, and its encoding on the PMI line (one request line
// `cmd=dpm_spawn`, boot/pmi_wire.h). Shared by the library (encode) and mpiexec (decode).
//
// Fields: ncmd=K, then per command i: c<i>=program, a<i>=arg,arg,... , n<i>=maxprocs, and when given
// h<i>=host, w<i>=wdir, p<i>=path (the info keys of MPI-3.1 §10.3.4). Text is percent-encoded (every byte
// outside [A-Za-z0-9._/:@+-] as %XX), so spaces, commas and '=' survive the PMI line.
#pragma once
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "util/status.h"

namespace ftmpi::dpm {

struct SpawnCommand {
  std::string command;
  std::vector<std::string> args;  // without argv[0]
  int maxprocs = 0;
  std::string host, wdir, path;  // info keys (empty: not given)
};

std::string pct_encode(std::string_view s);
Result<std::string> pct_decode(std::string_view s);

// The fields of the request line (cmd not included).
std::vector<std::pair<std::string, std::string>> encode_spawn(const std::vector<SpawnCommand>& cmds);
// Errc::arg on a malformed request.
Result<std::vector<SpawnCommand>> decode_spawn(const std::vector<std::pair<std::string, std::string>>& fields);

}  // namespace ftmpi::dpm
