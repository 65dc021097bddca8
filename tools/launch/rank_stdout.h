// The channel a rank's stdout goes through. By default a pseudo-terminal, as Open MPI does: isatty(1) is
// true in the rank, so its C stdio is line-buffered and a line printed just before the rank dies is not
// lost in a full stdio buffer. The terminal is raw (no "\n" -> "\r\n", no echo): bytes arrive as written.
// With --output-pipe, or when no pseudo-terminal can be had, a pipe (block-buffered stdio in the rank).
// Either way mpiexec reads the other end with the same line-safe forwarding (output_forwarder.h); a
// pseudo-terminal's read end reports EIO instead of EOF once every writer is gone.
#pragma once

namespace ftmpi::mpiexec {

struct OutputChannel {
  int read_end = -1;   // mpiexec's end (close-on-exec)
  int write_end = -1;  // becomes the rank's fd 1 (close-on-exec here; spawn_rank dup2s it)
  bool is_pty = false;
};

// Returns false (errno set) only if not even a pipe can be created.
bool open_output_channel(bool want_pty, OutputChannel& out);

}  // namespace ftmpi::mpiexec
