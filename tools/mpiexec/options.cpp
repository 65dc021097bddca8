#include "options.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string_view>

namespace ftmpi::mpiexec {
namespace {

// `s` in lower case (ASCII): Open MPI's mapping objects and MCA booleans are case-insensitive.
std::string lowercase(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::optional<int> parse_int(std::string_view s, int min, int max) {
  int v = 0;
  if (s.empty()) return std::nullopt;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || v < min || v > max) return std::nullopt;
  return v;
}

// A positive number of seconds ("10", "0.5"); nullopt if not a finite positive number.
std::optional<double> parse_seconds(const std::string& s) {
  if (s.empty() || s[0] == '-' || s[0] == '+' || isspace(static_cast<unsigned char>(s[0]))) return std::nullopt;
  char* end = nullptr;
  double v = strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size() || !std::isfinite(v) || v <= 0 || v > 1e9) return std::nullopt;
  return v;
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (;;) {
    std::size_t p = s.find(sep, start);
    out.push_back(s.substr(start, p == std::string::npos ? std::string::npos : p - start));
    if (p == std::string::npos) break;
    start = p + 1;
  }
  return out;
}

bool valid_env_name(std::string_view name) {
  if (name.empty() || isdigit(static_cast<unsigned char>(name[0]))) return false;
  for (char c : name)
    if (!(isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return true;
}

enum class Opt {
  np, oversubscribe, allow_root, bind_to, x, tag_output, timeout, transport, host, hostfile, help, version,
  with_ft, am, initial_errhandler, detector_period, detector_timeout, inject, max_restarts, spares, output_pipe,
  startup_timeout, rsh_agent, tree_fanout, status, halt, tcp_if, universe_size, async_progress, name_service, ompi_server,
  map_by, disable_auto_cleanup, wdir, per_host, report_bindings, display_map, prefix, hwthread_cpus, envall,
  prepend_rank, output_filename, singleton,
};

struct OptSpec {
  const char* name;  // without leading dashes
  Opt opt;
  bool takes_value;
};

constexpr OptSpec kOptions[] = {
    {"n", Opt::np, true},
    {"np", Opt::np, true},
    {"oversubscribe", Opt::oversubscribe, false},
    {"universe-size", Opt::universe_size, true},
    {"name-service", Opt::name_service, true},
    {"ompi-server", Opt::ompi_server, true},
    {"allow-run-as-root", Opt::allow_root, false},
    {"bind-to", Opt::bind_to, true},
    {"map-by", Opt::map_by, true},
    {"disable-auto-cleanup", Opt::disable_auto_cleanup, false},
    {"x", Opt::x, true},
    {"tag-output", Opt::tag_output, false},
    {"l", Opt::prepend_rank, false},
    {"prepend-rank", Opt::prepend_rank, false},
    {"timeout", Opt::timeout, true},
    {"transport", Opt::transport, true},
    {"host", Opt::host, true},
    {"H", Opt::host, true},
    {"hostfile", Opt::hostfile, true},
    {"f", Opt::hostfile, true},      // MPICH Hydra's -f FILE
    {"hosts", Opt::host, true},      // MPICH Hydra's -hosts a,b:2
    {"machinefile", Opt::hostfile, true},
    {"h", Opt::help, false},
    {"help", Opt::help, false},
    {"version", Opt::version, false},
    {"with-ft", Opt::with_ft, true},
    {"ft", Opt::with_ft, true},
    {"am", Opt::am, true},
    {"initial-errhandler", Opt::initial_errhandler, true},
    {"detector-period", Opt::detector_period, true},
    {"detector-timeout", Opt::detector_timeout, true},
    {"inject", Opt::inject, true},
    {"max-restarts", Opt::max_restarts, true},
    {"spares", Opt::spares, true},
    {"output-pipe", Opt::output_pipe, false},
    {"startup-timeout", Opt::startup_timeout, true},
    {"rsh-agent", Opt::rsh_agent, true},
    {"launch-agent", Opt::rsh_agent, true},
    {"tree-fanout", Opt::tree_fanout, true},
    {"status", Opt::status, true},
    {"halt", Opt::halt, true},
    {"tcp-if", Opt::tcp_if, true},
    {"async-progress", Opt::async_progress, false},
    {"wdir", Opt::wdir, true},
    {"ppn", Opt::per_host, true},
    {"npernode", Opt::per_host, true},
    {"report-bindings", Opt::report_bindings, false},
    {"display-map", Opt::display_map, false},
    {"output-filename", Opt::output_filename, true},
    {"prefix", Opt::prefix, true},
    {"use-hwthread-cpus", Opt::hwthread_cpus, false},
    {"genvall", Opt::envall, false},
    {"envall", Opt::envall, false},
    {"singleton", Opt::singleton, true},
};

const OptSpec* find_option(std::string_view name) {
  for (const OptSpec& o : kOptions)
    if (name == o.name) return &o;
  return nullptr;
}

// Apply one option with its value. Returns an error message, or empty on success.
std::string apply(Options& o, const OptSpec& spec, const std::string& shown, const std::string& v,
                  ParsedCommandLine::Action& action, int& job_id_out) {
  auto bad = [&](const char* what) { return "bad value '" + v + "' for " + shown + ": " + what; };
  switch (spec.opt) {
    case Opt::np: {
      auto n = parse_int(v, 1, 1 << 20);
      if (!n) return bad("expected a number of processes >= 1");
      o.np = *n;
      o.np_given = true;
      return {};
    }
    case Opt::oversubscribe: o.oversubscribe = true; return {};
    case Opt::universe_size: {
      auto n = parse_int(v, 1, 1 << 16);
      if (!n) return bad("expected a number of processes >= 1");
      o.universe_size = *n;
      return {};
    }
    case Opt::name_service:
      if (v.empty()) return bad("expected a directory");
      o.name_service = v;
      return {};
    case Opt::ompi_server:  // Open MPI's form: file:PATH (here PATH is the name service's directory)
      if (v.rfind("file:", 0) != 0 || v.size() == 5) return bad("expected file:DIR (the name service's directory)");
      o.name_service = v.substr(5);
      return {};
    case Opt::allow_root: o.allow_run_as_root = true; return {};
    case Opt::singleton: {  // internal: started by a singleton's library (src/boot/launcher_on_demand.h)
      std::size_t colon = v.find(':');
      auto pid = parse_int(v.substr(0, colon), 1, 1 << 30);
      auto fd = colon == std::string::npos ? std::nullopt : parse_int(v.substr(colon + 1), 0, 1 << 20);
      if (!pid || !fd) return bad("expected PID:FD");
      o.singleton_pid = *pid;
      o.singleton_fd = *fd;
      return {};
    }
    case Opt::map_by: {
      // Open MPI's --map-by OBJECT[:MODIFIERS] (ULFM users on one machine type --map-by :OVERSUBSCRIBE). ftmpi
      // fills the slots in order, which is what mapping by slot or by any object inside a host gives; a
      // mapping across hosts (node, ppr, seq, rankfile) would differ and is refused.
      const std::string object = lowercase(v.substr(0, v.find(':')));
      if (object == "ppr") {  // ppr:N:node (N ranks per host), as -ppn / --npernode
        const std::vector<std::string> parts = split(lowercase(v), ':');
        auto n = parts.size() >= 3 ? parse_int(parts[1], 1, 1 << 16) : std::nullopt;
        if (!n || parts[2] != "node")
          return bad("ppr needs the form ppr:N:node (N ranks per host; ftmpi maps per host only)");
        o.per_host = *n;
        return {};
      }
      if (!(object.empty() || object == "slot" || object == "core" || object == "hwthread" || object == "socket" ||
            object == "package" || object == "numa" || object == "l1cache" || object == "l2cache" ||
            object == "l3cache" || object == "board"))
        return bad("ftmpi places ranks in slot order: expected slot, core, hwthread, socket, package, numa, "
                   "an l*cache or ppr:N:node, with any :MODIFIERS (e.g. :OVERSUBSCRIBE)");
      return {};
    }
    case Opt::disable_auto_cleanup:  // MPICH Hydra's switch for ULFM runs: a failed process does not end the job
      if (o.ft.mode == "no") o.ft.mode = "ulfm";
      return {};
    case Opt::bind_to:
      // hwthread: the CPUs ftmpi binds to are the ones the kernel lists, i.e. hardware threads already.
      if (v == "core" || v == "cores" || v == "hwthread" || v == "hwthreads") o.bind_to = BindTo::core;
      else if (v == "none") o.bind_to = BindTo::none;
      else return bad("expected core, hwthread or none");
      return {};
    case Opt::x: {
      std::size_t eq = v.find('=');
      std::string name = v.substr(0, eq);
      if (!valid_env_name(name)) return bad("expected VAR or VAR=value");
      if (eq == std::string::npos) o.env.emplace_back(name, std::nullopt);
      else o.env.emplace_back(name, v.substr(eq + 1));
      return {};
    }
    case Opt::tag_output: o.tag_output = TagStyle::open_mpi; return {};
    case Opt::prepend_rank: o.tag_output = TagStyle::hydra; return {};
    case Opt::wdir:
      if (v.empty()) return bad("expected a directory");
      o.wdir = v;
      return {};
    case Opt::per_host: {
      auto n = parse_int(v, 1, 1 << 16);
      if (!n) return bad("expected a number of ranks per host >= 1");
      o.per_host = *n;
      return {};
    }
    case Opt::report_bindings: o.report_bindings = true; return {};
    case Opt::display_map: o.display_map = true; return {};
    case Opt::output_filename: {
      std::string why;
      auto spec = parse_output_files(v, why);
      if (!spec) return bad(why.c_str());
      o.output_files = std::move(spec);
      return {};
    }
    case Opt::prefix:  // Open MPI's install prefix on remote hosts: ftmpid is found next to mpiexec
      if (v.empty()) return bad("expected a directory");
      return {};
    case Opt::hwthread_cpus: return {};  // slots are the CPUs the kernel lists (hardware threads) already
    case Opt::envall: return {};         // Hydra's -genvall / -envall: every rank gets mpiexec's environment already
    case Opt::async_progress: o.env.emplace_back("FTMPI_ASYNC_PROGRESS", "1"); return {};
    case Opt::timeout: {
      auto s = parse_seconds(v);
      if (!s) return bad("expected a positive number of seconds");
      o.timeout_seconds = *s;
      o.timeout_given = true;
      return {};
    }
    case Opt::transport:
      if (v != "auto" && v != "shm" && v != "tcp") return bad("expected auto, shm or tcp");
      o.transport = v;
      return {};
    case Opt::host:
      for (const std::string& h : split(v, ','))
        if (!h.empty()) o.hosts.push_back(h);
      return {};
    case Opt::hostfile:
      if (v.empty()) return bad("expected a file name");
      o.hostfile = v;
      return {};
    case Opt::help: action = ParsedCommandLine::Action::help; return {};
    case Opt::version: action = ParsedCommandLine::Action::version; return {};
    case Opt::with_ft:
      if (v != "ulfm" && v != "mpi" && v != "reinit" && v != "lam" && v != "no")
        return bad("expected ulfm, mpi, reinit, lam or no");
      o.ft.mode = v;
      return {};
    case Opt::am:
      if (v != "ft-enable-mpi") return bad("only ft-enable-mpi is supported");
      o.ft.mode = "mpi";
      return {};
    case Opt::initial_errhandler:
      if (v != "mpi_errors_return" && v != "mpi_errors_are_fatal" && v != "mpi_errors_abort")
        return bad("expected mpi_errors_return, mpi_errors_are_fatal or mpi_errors_abort");
      o.ft.initial_errhandler = v;
      return {};
    case Opt::detector_period:
    case Opt::detector_timeout: {
      auto ms = parse_int(v, 1, 86400000);
      if (!ms) return bad("expected milliseconds >= 1");
      (spec.opt == Opt::detector_period ? o.ft.detector_period_ms : o.ft.detector_timeout_ms) = *ms;
      return {};
    }
    case Opt::inject: {
      std::string err;
      auto spec_ok = parse_inject_spec(v, err);
      if (!spec_ok) return bad(err.c_str());
      o.ft.injections.push_back(*spec_ok);
      return {};
    }
    case Opt::output_pipe: o.output_pipe = true; return {};
    case Opt::tcp_if:
      if (v.empty() || v.find_first_of(" \t=") != std::string::npos) return bad("expected NAME or CIDR[,...]");
      o.tcp_if = v;
      return {};
    case Opt::startup_timeout: {
      auto s = parse_seconds(v);
      if (!s) return bad("expected a positive number of seconds");
      o.ft.startup_seconds = *s;
      return {};
    }
    case Opt::rsh_agent:
      if (v.find_first_not_of(" \t") == std::string::npos) return bad("expected a command");
      o.rsh_agent = v;
      return {};
    case Opt::tree_fanout: {
      auto n = parse_int(v, 1, 4096);
      if (!n) return bad("expected a number >= 1");
      o.tree_fanout = *n;
      return {};
    }
    case Opt::status:
    case Opt::halt: {
      auto n = parse_int(v, 1, 1 << 30);
      if (!n) return bad("expected a job id (the pid of its mpiexec)");
      action = spec.opt == Opt::status ? ParsedCommandLine::Action::status : ParsedCommandLine::Action::halt;
      job_id_out = *n;
      return {};
    }
    case Opt::max_restarts: {
      auto n = parse_int(v, 0, 1000000);
      if (!n) return bad("expected a number >= 0");
      o.ft.max_restarts = *n;
      return {};
    }
    case Opt::spares: {
      auto n = parse_int(v, 0, 4096);
      if (!n) return bad("expected a number of spare processes >= 0");
      o.ft.spares = *n;
      return {};
    }
  }
  return "internal error: unhandled option " + shown;
}

// An Open MPI boolean MCA value: 1/0, true/false, yes/no, enabled/disabled (any case).
std::optional<bool> parse_mca_bool(const std::string& raw) {
  const std::string value = lowercase(raw);
  if (value == "1" || value == "true" || value == "yes" || value == "enabled" || value == "t" || value == "y") return true;
  if (value == "0" || value == "false" || value == "no" || value == "disabled" || value == "f" || value == "n") return false;
  return std::nullopt;
}

// Open MPI's --mca NAME VALUE: the few parameters that mean something to ftmpi (a bad value is an error),
// the ones run lines commonly carry (accepted and ignored), and any other (ignored with a warning in
// `warnings`: Open MPI itself runs a job whatever unknown parameters its command line names).
std::string apply_mca(Options& o, const std::string& name, const std::string& value, std::vector<std::string>& warnings) {
  if (name == "plm_rsh_agent" || name == "orte_rsh_agent" || name == "pls_rsh_agent") {
    if (value.find_first_not_of(" \t") == std::string::npos) return "bad value '' for --mca " + name + ": expected a command";
    o.rsh_agent = value;
    return {};
  }
  if (name == "btl_tcp_if_include") {
    if (value.empty() || value.find_first_of(" \t=") != std::string::npos)
      return "bad value '" + value + "' for --mca btl_tcp_if_include: expected NAME or CIDR[,...]";
    o.tcp_if = value;
    return {};
  }
  if (name == "orte_enable_recovery") {
    if (value == "1" || value == "true" || value == "yes") o.ft.mode = "reinit";
    else if (value != "0" && value != "false" && value != "no")
      return "bad value '" + value + "' for --mca orte_enable_recovery: expected 0 or 1";
    return {};
  }
  // Open MPI 5's ULFM switches: mpi_ft_enable true is what --with-ft ulfm sets; the detector's period and
  // timeout are in seconds there (a double), milliseconds here.
  if (name == "mpi_ft_enable") {
    auto on = parse_mca_bool(value);
    if (!on) return "bad value '" + value + "' for --mca mpi_ft_enable: expected true or false";
    if (*on) {
      if (o.ft.mode == "no") o.ft.mode = "ulfm";
    } else {
      o.ft.mode = "no";
    }
    return {};
  }
  if (name == "mpi_ft_detector_period" || name == "mpi_ft_detector_timeout") {
    char* end = nullptr;
    double seconds = std::strtod(value.c_str(), &end);
    if (value.empty() || *end != '\0' || !(seconds > 0) || seconds > 86400)
      return "bad value '" + value + "' for --mca " + name + ": expected seconds > 0";
    int ms = std::max(1, static_cast<int>(seconds * 1000.0 + 0.5));
    (name == "mpi_ft_detector_period" ? o.ft.detector_period_ms : o.ft.detector_timeout_ms) = ms;
    return {};
  }
  if (name == "mpi_ft_detector" || name == "mpi_ft_detector_thread") {  // ftmpi's detector always runs
    if (!parse_mca_bool(value)) return "bad value '" + value + "' for --mca " + name + ": expected true or false";
    return {};
  }
  static constexpr const char* kIgnored[] = {
      "pml", "btl", "osc", "coll", "mtl", "plm_slurm_args", "plm_rsh_no_tree_spawn", "oob_tcp_if_include",
      "rmaps_base_oversubscribe", "mpi_ft_verbose", "btl_vader_single_copy_mechanism", "btl_sm_single_copy_mechanism",
      "mpi_warn_on_fork", "orte_base_help_aggregate", "btl_base_warn_component_unused", "mpi_yield_when_idle",
      "hwloc_base_binding_policy", "rmaps_base_mapping_policy", "mpi_leave_pinned", "opal_cuda_support",
      "orte_allowed_exit_without_sync", "plm_rsh_agent_args", "orte_tmpdir_base", "btl_openib_allow_ib"};
  for (const char* n : kIgnored)
    if (name == n) return {};
  warnings.push_back("warning: MCA parameter '" + name + "' has no meaning in ftmpi: ignored (ftmpi knows "
                     "plm_rsh_agent, btl_tcp_if_include, orte_enable_recovery and the mpi_ft_* of ULFM)");
  return {};
}

}  // namespace

std::optional<InjectSpec> parse_inject_spec(const std::string& spec, std::string& error) {
  InjectSpec out;
  out.text = spec;
  bool have_rank = false, have_after = false, have_at = false, have_signal = false;
  for (const std::string& item : split(spec, ',')) {
    std::size_t eq = item.find('=');
    if (eq == std::string::npos) {
      error = "expected key=value items, got '" + item + "'";
      return std::nullopt;
    }
    std::string key = item.substr(0, eq), val = item.substr(eq + 1);
    if (key == "host" && !have_rank && out.host.empty()) {
      if (val.empty() || val.find_first_of(" \t") != std::string::npos) { error = "host must be a host name"; return std::nullopt; }
      out.host = val;
    } else if (key == "rank" && !have_rank) {
      auto r = parse_int(val, 0, 1 << 20);
      if (!r) { error = "rank must be a number >= 0"; return std::nullopt; }
      out.rank = *r;
      have_rank = true;
    } else if (key == "after" && !have_after) {
      auto s = parse_seconds(val);
      if (!s && val != "0") { error = "after must be a number of seconds"; return std::nullopt; }
      out.after_seconds = s.value_or(0);
      out.kind = InjectSpec::Kind::after;
      have_after = true;
    } else if (key == "signal" && !have_signal) {
      if (val == "KILL" || val == "SIGKILL") out.signal = 9;
      else if (val == "STOP" || val == "SIGSTOP") out.signal = 19;
      else if (val == "TERM" || val == "SIGTERM") out.signal = 15;
      else { error = "signal must be KILL, STOP or TERM"; return std::nullopt; }
      have_signal = true;
    } else if (key == "at" && !have_at) {
      std::size_t colon = val.rfind(':');
      if (colon == std::string::npos || colon == 0 || val.compare(0, 4, "MPI_") != 0) {
        error = "at must be MPI_Function:N";
        return std::nullopt;
      }
      std::string fn = val.substr(0, colon);
      for (char c : fn)
        if (!(isalnum(static_cast<unsigned char>(c)) || c == '_')) {
          error = "at must be MPI_Function:N";
          return std::nullopt;
        }
      auto n = parse_int(std::string_view(val).substr(colon + 1), 1, 1 << 30);
      if (!n) { error = "the call number in at=MPI_Function:N must be >= 1"; return std::nullopt; }
      out.function = fn;
      out.call = *n;
      out.kind = InjectSpec::Kind::at;
      have_at = true;
    } else {
      error = "unknown or repeated item '" + key + "'";
      return std::nullopt;
    }
  }
  if (!out.host.empty()) {
    if (!have_after || have_signal) { error = "host=H goes with after=SECONDS only"; return std::nullopt; }
    return out;
  }
  if (!have_rank) { error = "rank=R or host=H is required"; return std::nullopt; }
  if (have_after == have_at) { error = "exactly one of after=SECONDS or at=MPI_Function:N is required"; return std::nullopt; }
  if (have_at && have_signal) { error = "signal= only goes with after="; return std::nullopt; }
  return out;
}

namespace {

// Hydra's two-word environment options: -env NAME VALUE (this context) and -genv NAME VALUE (every rank).
bool is_env_pair_option(const std::string& word, bool* global) {
  *global = word == "-genv" || word == "--genv";
  return *global || word == "-env" || word == "--env";
}

// The options an application context after ':' may carry (MPI-3.1 §10.3: -n and the context's own
// settings); parsed from argv[*i] on, up to its program. Returns an error message, or empty.
std::string parse_context_options(int argc, char** argv, int* i, AppContext& app) {
  for (; *i < argc; ++*i) {
    const std::string word = argv[*i];
    if (word == "--") { ++*i; break; }
    if (word.size() < 2 || word[0] != '-') break;  // the program
    bool global = false;
    if (is_env_pair_option(word, &global)) {
      if (global) return "option " + word + " applies to every rank: give it before the first program";
      if (*i + 2 >= argc) return "option " + word + " needs a name and a value";
      if (!valid_env_name(argv[*i + 1])) return "bad name '" + std::string(argv[*i + 1]) + "' for " + word;
      app.env.emplace_back(argv[*i + 1], std::string(argv[*i + 2]));
      *i += 2;
      continue;
    }
    std::string body = word.substr(word[1] == '-' ? 2 : 1), value;
    const std::size_t eq = body.find('=');
    const bool inline_value = eq != std::string::npos && word[1] == '-';
    if (inline_value) {
      value = body.substr(eq + 1);
      body = body.substr(0, eq);
    }
    const OptSpec* spec = find_option(body);
    if (!spec || !(spec->opt == Opt::np || spec->opt == Opt::x || spec->opt == Opt::wdir))
      return "option " + word.substr(0, word.find('=')) +
             " cannot be given for one program (after ':'): give it before the first program";
    if (!inline_value) {
      if (*i + 1 >= argc) return "option " + word + " needs a value";
      value = argv[++*i];
    }
    Options scratch;  // the shared parser fills an Options: keep the context's part of it
    ParsedCommandLine::Action act = ParsedCommandLine::Action::run;
    int job = 0;
    if (std::string err = apply(scratch, *spec, word.substr(0, word.find('=')), value, act, job); !err.empty()) return err;
    if (spec->opt == Opt::np) {
      app.np = scratch.np;
    } else if (spec->opt == Opt::x) {
      app.env.push_back(scratch.env.front());
    } else {
      app.wdir = scratch.wdir;
    }
  }
  return {};
}

// The program and its arguments: the words up to the next ':' (or the end).
void take_program(int argc, char** argv, int* i, AppContext& app) {
  for (; *i < argc && std::string_view(argv[*i]) != ":"; ++*i) app.argv.emplace_back(argv[*i]);
}

}  // namespace

int Options::app_of(int rank) const {
  int first = 0;
  for (std::size_t k = 0; k < apps.size(); ++k) {
    first += apps[k].np;
    if (rank < first) return static_cast<int>(k);
  }
  return apps.empty() ? 0 : static_cast<int>(apps.size()) - 1;
}

bool Options::single_program() const { return apps.size() <= 1; }

void apply_app_environment(const Options& o, int rank, std::vector<std::string>& env) {
  auto set = [&env](const std::string& name, const std::string& value) {
    const std::string prefix = name + "=";
    std::erase_if(env, [&](const std::string& e) { return e.rfind(prefix, 0) == 0; });
    env.push_back(prefix + value);
  };
  const int k = o.app_of(rank);
  if (!o.apps.empty())
    for (const auto& [name, value] : o.apps[static_cast<std::size_t>(k)].env) {
      if (value) set(name, *value);
      else if (const char* v = getenv(name.c_str())) set(name, v);
    }
  set("FTMPI_APPNUM", std::to_string(k));  // MPI_APPNUM (MPI-3.1 §10.5.3)
}

ParsedCommandLine parse_command_line(int argc, char** argv) {
  ParsedCommandLine r;
  r.action = ParsedCommandLine::Action::run;
  Options& o = r.options;
  auto usage_error = [&r](std::string why) {  // the line said without the "mpiexec: " prefix
    r.action = ParsedCommandLine::Action::error;
    r.error = std::move(why);
    return r;
  };
  AppContext first;  // the first context's own settings (-env) given among the job-wide options
  int i = 1;
  for (; i < argc; ++i) {
    std::string word = argv[i];
    if (word == "--") { ++i; break; }
    if (word.size() < 2 || word[0] != '-') break;  // the program
    if (word == "--mca" || word == "-mca" || word == "--gmca" || word == "-gmca") {  // Open MPI's two-value form: --mca KEY VALUE
      if (i + 2 >= argc) return usage_error("option " + word + " needs a parameter name and a value");
      std::string err = apply_mca(o, argv[i + 1], argv[i + 2], r.warnings);
      i += 2;
      if (!err.empty()) return usage_error(err);
      continue;
    }
    if (bool global = false; is_env_pair_option(word, &global)) {  // Hydra's -genv / -env NAME VALUE
      if (i + 2 >= argc || !valid_env_name(argv[i + 1]))
        return usage_error("option " + word + " needs a variable name and a value");
      (global ? o.env : first.env).emplace_back(argv[i + 1], std::string(argv[i + 2]));
      i += 2;
      continue;
    }
    std::string body = word.substr(word[1] == '-' ? 2 : 1);
    std::string value;
    bool inline_value = false;
    std::size_t eq = body.find('=');
    if (eq != std::string::npos && word[1] == '-') {  // --name=value
      value = body.substr(eq + 1);
      body = body.substr(0, eq);
      inline_value = true;
    }
    const OptSpec* spec = find_option(body);
    if (!spec) return usage_error("unknown option '" + word + "' (see mpiexec --help)");
    std::string shown = word.substr(0, word.find('='));
    if (spec->takes_value && !inline_value) {
      if (i + 1 >= argc) return usage_error("option " + shown + " needs a value");
      value = argv[++i];
    } else if (!spec->takes_value && inline_value) {
      return usage_error("option " + shown + " takes no value");
    }
    ParsedCommandLine::Action act = r.action;
    std::string err = apply(o, *spec, shown, value, act, r.job_id);
    if (!err.empty()) return usage_error(err);
    if (act != ParsedCommandLine::Action::run) r.action = act;
  }
  if (r.action != ParsedCommandLine::Action::run) return r;  // --help / --version / --status / --halt win
  if (o.rsh_agent.empty()) {
    const char* env = getenv("FTMPI_RSH_AGENT");
    o.rsh_agent = env && *env ? env : "ssh";
  }
  // The application contexts: the first one's program, then "-n N prog2 args" after each ':'.
  first.np = o.np;
  take_program(argc, argv, &i, first);
  if (first.argv.empty())
    return usage_error("no program to run (usage: mpiexec [options] program [args...] [: [-n N] program [args...]]...)");
  o.apps.push_back(std::move(first));
  while (i < argc) {  // argv[i] is ':'
    ++i;
    AppContext app;
    if (std::string err = parse_context_options(argc, argv, &i, app); !err.empty()) return usage_error(err);
    take_program(argc, argv, &i, app);
    if (app.argv.empty())
      return usage_error("no program after ':' (usage: mpiexec [options] program [args...] : [-n N] program [args...])");
    o.apps.push_back(std::move(app));
  }
  if (o.apps.size() > 1) {
    long total = 0;
    for (const AppContext& a : o.apps) total += a.np;
    if (total > (1 << 20)) return usage_error("too many processes: " + std::to_string(total));
    o.np = static_cast<int>(total);
    o.np_given = true;
  }
  for (AppContext& a : o.apps)
    if (a.wdir.empty()) a.wdir = o.wdir;
  if (o.singleton_pid > 0) {
    // The job of a singleton that started this mpiexec: one rank (the singleton), on this host, not fault-tolerant.
    if (o.np_given || !o.hosts.empty() || !o.hostfile.empty() || o.ft.enabled()) {
      return usage_error("--singleton goes with no -n, --host, --hostfile or --with-ft");
    }
    o.np = o.apps.front().np = 1;
  }
  // MPIEXEC_TIMEOUT (as MPICH's mpiexec honours it) when --timeout is not given: the option wins. Not for a
  // singleton's mpiexec: the singleton was not started under a timeout of its launcher.
  if (!o.timeout_given && o.singleton_pid == 0)
    if (const char* env = getenv("MPIEXEC_TIMEOUT"); env && *env) {
      auto s = parse_seconds(env);
      if (!s)
        return usage_error(std::string("bad value '") + env + "' for MPIEXEC_TIMEOUT: expected a positive number of seconds");
      o.timeout_seconds = *s;
    }
  if (o.ft.enabled() && o.ft.timeout_ms() <= o.ft.period_ms()) {
    return usage_error("--detector-timeout (" + std::to_string(o.ft.timeout_ms()) + " ms) must be longer than --detector-period (" +
              std::to_string(o.ft.period_ms()) + " ms)");
  }
  if (o.ft.spares > 0 && !o.single_program()) {
    return usage_error("--spares needs a single program (a spare stands in for any rank; this job runs " +
              std::to_string(o.apps.size()) + " programs)");
  }
  if (o.ft.spares > 0 && !o.ft.reinit())
    return usage_error("--spares needs --with-ft reinit (a spare process takes over a failed rank)");
  for (const InjectSpec& s : o.ft.injections)
    if (s.host.empty() && s.rank >= o.np) {
      return usage_error("--inject names rank " + std::to_string(s.rank) + " but the job has " + std::to_string(o.np) +
                " ranks");
    }
  return r;
}

const char* usage_text() {
  return R"(Usage: mpiexec [options] program [args...]        (mpirun is the same program)
       mpiexec [options] [-n N] prog1 [args...] : [-n M] prog2 [args...] ...

Start N copies of program on this host or on several hosts (one ftmpid daemon per host, started
through the rsh agent), connected by ftmpi's PMI-1 bootstrap. With ':' several programs form one
MPI_COMM_WORLD (ranks in command-line order; MPI_APPNUM is the program's position, from 0); after
each ':' only -n/-np, -x, -env and -wdir may be given (for that program).

  -n, -np N                 number of ranks (default 1)
  --oversubscribe           allow more ranks than cores (always allowed; accepted for compatibility)
  --universe-size N         MPI_UNIVERSE_SIZE (default: the cores, or the --host/--hostfile slots)
  --name-service DIR        share ports and names (MPI_Open_port, MPI_Publish_name) with other mpiexec
                            jobs given the same DIR (also FTMPI_NAME_SERVICE=DIR, --ompi-server file:DIR)
  --allow-run-as-root       accepted for compatibility (running as root is always allowed)
  --bind-to core|hwthread|none   bind rank i to CPU i (default when ranks <= CPUs) or not at all
  --map-by OBJ[:MODS]       Open MPI's mapping: slot, core, hwthread, socket, package, numa, l*cache (all
                            mean slot order here), any modifiers (:OVERSUBSCRIBE); ppr:N:node = -ppn N;
                            node, seq, rankfile are refused
  -disable-auto-cleanup     MPICH Hydra's ULFM switch: = --with-ft ulfm
  -x VAR[=value]            export VAR (with mpiexec's value, or the one given) to every rank; repeatable
  -genv VAR VALUE           MPICH's form: set VAR to VALUE for every rank (-genvall, -envall accepted)
  -env VAR VALUE            set VAR for the ranks of this program only
  -wdir, --wdir DIR         working directory of the ranks (before the first program: of every program)
  -ppn, --npernode N        N ranks per host (also --map-by ppr:N:node); without -n: N on each host
  --report-bindings         print each rank's CPU binding on stderr at launch
  --display-map             print which ranks (and programs) run on which host on stderr at launch
  --output-filename DIR[:nojobid][:nocopy]   also write each rank's stdout/stderr to
                            DIR/1/rank.N/stdout|stderr (Open MPI 4's layout; nocopy: files only)
  --prefix DIR, --use-hwthread-cpus   accepted for compatibility (ftmpid is found next to mpiexec;
                            slots are the CPUs the kernel lists)
  --tag-output              prefix every output line with [1,<rank>]<stdout>: or [1,<rank>]<stderr>:
  -l, -prepend-rank         MPICH's form: prefix every output line with [<rank>]
  --timeout SECONDS         kill the job after SECONDS and exit with status 124 (default: the
                            environment variable MPIEXEC_TIMEOUT, if set; the option wins)
  --output-pipe             rank stdout is a pipe (block-buffered stdio) instead of a pseudo-terminal
  --async-progress          a progress thread per rank: non-blocking operations advance while the
                            application computes (exported as FTMPI_ASYNC_PROGRESS=1; docs/performance.md)
  --transport auto|shm|tcp  transport between ranks (exported as FTMPI_TRANSPORT)
  --tcp-if NAME|CIDR[,...]  interfaces for TCP between hosts (default: every usable one; exported as
                            FTMPI_TCP_IF); also --mca btl_tcp_if_include NAME|CIDR
  -H, --host LIST           hosts to use: a,b:2,c (host:slots); ranks fill the slots in order
  --hostfile, -f FILE       file of hosts to use, one "host [slots=N]" (or MPICH's "host:N") per line;
                            -hosts LIST is --host
  --rsh-agent CMD           how to start a daemon on another host, called as CMD HOST COMMAND...
                            (default ssh; also --mca plm_rsh_agent CMD and FTMPI_RSH_AGENT)
  --tree-fanout K           each daemon (and mpiexec) has at most K child daemons (default 32)
  --status JOBID            print the hosts and ranks of running job JOBID (its mpiexec's pid)
  --halt JOBID              end running job JOBID in order (no failure notices) and wait for it
  --with-ft, --ft MODE      fault tolerance: ulfm|mpi|reinit|lam|no (default no); -am ft-enable-mpi = mpi.
                            In FT mode a failed rank does not end the job: the others are told
  --initial-errhandler EH   mpi_errors_return|mpi_errors_are_fatal|mpi_errors_abort
  --detector-period MS      FT mode: heartbeat period of each rank (default 100)
  --detector-timeout MS     FT mode: silence after which a rank is declared hung and killed (default 1000)
  --startup-timeout SECONDS FT mode: a rank in MPI_Init must heartbeat within SECONDS (default 60)
  --inject SPEC             rank=R,after=SECONDS[,signal=KILL|STOP|TERM] or rank=R,at=MPI_Func:N
                            or host=H,after=SECONDS (host H is lost: its daemon and ranks die)
  --max-restarts N          --with-ft reinit: failures recovered at most (default 16; a lost host is one)
  --spares N                --with-ft reinit: N warm processes per host wait in MPI_Init; a failed
                            rank is taken over by one (no fork/exec): its host's, else another host's
  --mca KEY VALUE           Open MPI parameters: plm_rsh_agent CMD (= --rsh-agent), btl_tcp_if_include X
                            (= --tcp-if), orte_enable_recovery 1 (= --with-ft reinit), mpi_ft_enable
                            true (= --with-ft ulfm), mpi_ft_detector_period/_timeout SECONDS; pml, btl,
                            plm_slurm_args and a few more are accepted and ignored, any other with a warning
  -h, --help                this text
  --version                 print the version

Single-dash long options (-np, -host, -timeout) work too. Options end at the program name or "--".
Exit status: 0 success; the failed rank's exit code, or 128+signal; 1 for a rank that exited 0 after
initializing MPI without finalizing; MPI_Abort's code; 124 timeout; 128+signal when mpiexec itself is
signalled (130 for Ctrl-C); 2 for usage errors and programs that cannot be started. In FT mode: 0 when
every rank that did not fail exited 0 after MPI_Finalize, else the first non-zero exit code of a
surviving rank. See docs/mpiexec.md.
)";
}

}  // namespace ftmpi::mpiexec
