// mpiexec's command line: what the user asked for, parsed by hand (single-dash long options such as
// -np, -x and -am work as in Open MPI and MPICH). See docs/mpiexec.md for every option.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "output_files.h"
#include "output_forwarder.h"

namespace ftmpi::mpiexec {

// One --inject SPEC: either "rank=R,after=SECONDS[,signal=KILL|STOP|TERM]" (the launcher signals the rank)
// or "rank=R,at=MPI_Func:N" (the rank kills itself at its Nth call of MPI_Func; done by the library).
struct InjectSpec {
  enum class Kind { after, at };
  Kind kind = Kind::after;
  int rank = 0;
  std::string host;          // "host=H,after=S": the whole host H is lost (daemon and ranks; several hosts)
  double after_seconds = 0;  // Kind::after
  int signal = 9;            // Kind::after: SIGKILL, SIGSTOP or SIGTERM
  std::string function;      // Kind::at: e.g. "MPI_Allreduce"
  int call = 0;              // Kind::at: 1-based call number
  std::string text;          // the spec as given (exported to ranks for Kind::at)
};

enum class BindTo { unset, core, none };

// -x VAR (value taken from mpiexec's environment) or -x VAR=value / -env VAR value: one setting.
using EnvSetting = std::pair<std::string, std::optional<std::string>>;

// One application context of the command line (MPI-3.1 §10.3 "mpiexec": `mpiexec -n 2 a : -n 3 b args`): its
// ranks follow the previous context's, and MPI_APPNUM is its position (0-based).
struct AppContext {
  int np = 1;
  std::vector<std::string> argv;  // program and its arguments (argv[0] as typed)
  std::vector<EnvSetting> env;    // its own -x / -env settings, applied after the job-wide ones
  std::string wdir;               // -wdir / --wdir: its working directory (empty: mpiexec's)
  std::string path;               // the resolved executable (filled by main before the job starts)
};

inline constexpr int kDefaultDetectorPeriodMs = 100;
inline constexpr int kDefaultDetectorTimeoutMs = 1000;
inline constexpr double kDefaultStartupSeconds = 60;

// Fault-tolerance options (docs/mpiexec.md, docs/ft-protocol.md).
struct FtOptions {
  std::string mode = "no";          // --with-ft / --ft / -am ft-enable-mpi: ulfm|mpi|reinit|lam|no
  std::string initial_errhandler;   // --initial-errhandler (empty: library default)
  int detector_period_ms = -1;      // --detector-period (-1: default)
  int detector_timeout_ms = -1;     // --detector-timeout (-1: default)
  int max_restarts = -1;            // --max-restarts (-1: default)
  int spares = 0;                   // --spares N (reinit): warm processes waiting to take over a rank
  // --startup-timeout: a rank that sent PMI init must heartbeat within this many seconds of its last
  // PMI exchange (time spent waiting in a PMI barrier does not count). A stopped rank is judged by the
  // detector timeout from the start, heartbeat or not.
  double startup_seconds = kDefaultStartupSeconds;
  std::vector<InjectSpec> injections;

  // FT mode is on: a failed rank no longer ends the job (ulfm, mpi: survivors are told; reinit: the rank
  // is restarted and every rank rolls back, tools/mpiexec/job_reinit.cpp).
  bool enabled() const { return mode != "no"; }
  // The value of FTMPI_FT for the ranks: "ulfm" for ulfm and mpi, "reinit" for reinit, "lam" for LAM's
  // reliable mode (seed 002 §8.2; the launcher behaves as for ulfm).
  const char* rank_mode() const { return mode == "reinit" ? "reinit" : mode == "lam" ? "lam" : "ulfm"; }
  bool reinit() const { return mode == "reinit"; }
  int restarts_limit() const { return max_restarts >= 0 ? max_restarts : 16; }
  int period_ms() const { return detector_period_ms > 0 ? detector_period_ms : kDefaultDetectorPeriodMs; }
  int timeout_ms() const { return detector_timeout_ms > 0 ? detector_timeout_ms : kDefaultDetectorTimeoutMs; }
};

struct Options {
  int np = 1;
  bool np_given = false;
  bool oversubscribe = false;
  int universe_size = 0;  // --universe-size N (MPI_UNIVERSE_SIZE); 0: cores or host slots
  // --name-service DIR (or FTMPI_NAME_SERVICE; --ompi-server file:DIR): ports and names shared with other
  // mpiexec jobs given the same DIR (src/dpm/name_dir.h). Empty: this job only.
  std::string name_service;
  // Set by main once the job holds its slot in DIR: the slot (dpm/universe.h) and the shared secret.
  int universe_slot = 0;
  std::string dpm_secret;
  bool allow_run_as_root = false;
  BindTo bind_to = BindTo::unset;
  // Job-wide -x VAR[=value] and -genv VAR value settings, in order.
  std::vector<EnvSetting> env;
  TagStyle tag_output = TagStyle::none;  // --tag-output (Open MPI's tags), -l / -prepend-rank (Hydra's)
  bool output_pipe = false;    // --output-pipe: rank stdout is a pipe, not a pseudo-terminal
  double timeout_seconds = 0;  // 0: no timeout (--timeout, else MPIEXEC_TIMEOUT)
  bool timeout_given = false;  // --timeout was on the command line (it wins over MPIEXEC_TIMEOUT)
  std::string transport = "auto";
  // --tcp-if NAME|CIDR[,...] (also --mca btl_tcp_if_include X): interfaces for TCP between hosts, exported
  // as FTMPI_TCP_IF (src/transport/tcp/tcp_interfaces.h). Empty: every usable interface.
  std::string tcp_if;
  std::vector<std::string> hosts;  // --host/-H entries (host or host:slots), comma lists split
  std::string hostfile;
  // Several hosts (docs/mpiexec.md): the rsh agent (--rsh-agent, --mca plm_rsh_agent, FTMPI_RSH_AGENT;
  // default ssh), split into words; the launcher tree's fan-out (--tree-fanout).
  std::string rsh_agent;
  int tree_fanout = 32;
  FtOptions ft;
  // --singleton PID:FD (internal, docs/dpm.md "From a singleton"): adopt process PID, which started this
  // mpiexec on demand, as rank 0 of a one-rank job whose PMI connection is descriptor FD; apps[0].argv is its
  // command line (for messages). 0 / -1: a normal launch.
  int singleton_pid = 0;
  int singleton_fd = -1;
  // -ppn / --npernode N / --map-by ppr:N:node: N ranks per host (0: fill each host's slots).
  int per_host = 0;
  std::optional<OutputFileSpec> output_files;  // --output-filename DIR[:nojobid][:nocopy]
  bool report_bindings = false;  // --report-bindings: one line per rank on stderr at launch
  bool display_map = false;      // --display-map: the hosts and their ranks on stderr at launch
  std::string wdir;              // -wdir / --wdir for every context that gives none
  // The application contexts, at least one; np is the sum of their np.
  std::vector<AppContext> apps;

  // Which context rank r (0 <= r < np) belongs to.
  int app_of(int rank) const;
  const AppContext& app(int rank) const { return apps[static_cast<std::size_t>(app_of(rank))]; }
  // The job runs one program (one application context): a spare or the respawn template can then stand
  // in for any rank.
  bool single_program() const;
};

// `env` (NAME=VALUE strings) with rank r's context applied: its -x/-env settings, its FTMPI_APPNUM.
void apply_app_environment(const Options& o, int rank, std::vector<std::string>& env);

struct ParsedCommandLine {
  enum class Action { run, help, version, error, status, halt };
  Action action = Action::error;
  int job_id = 0;  // Action::status / halt: the job (mpiexec's pid)
  Options options;
  std::string error;  // for Action::error: one line, without "mpiexec: " prefix
  std::vector<std::string> warnings;  // lines for stderr (without "mpiexec: "), the job runs anyway
};

// Parse argv (argv[0] is mpiexec itself). Options end at the first word that is not an option (the
// program) or after "--". Never exits; errors are returned.
ParsedCommandLine parse_command_line(int argc, char** argv);

// Parse one --inject SPEC strictly. nullopt and `error` filled when malformed.
std::optional<InjectSpec> parse_inject_spec(const std::string& spec, std::string& error);

// The text printed by -h/--help.
const char* usage_text();

}  // namespace ftmpi::mpiexec
