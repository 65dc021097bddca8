// ftmpid: the host daemon of a several-hosts job (daemon.h). Started by mpiexec through the rsh agent:
//   ftmpid --node N --parent ADDR[,ADDR...]:PORT --key KEY --fanout K --nodes M
//          [--period MS] [--timeout MS] [--startup MS] [--ancestors NODE@EP+NODE@EP...]
// Not meant to be run by hand; it exits 1 on a bad command line or when it cannot reach its parent,
// 3 when it lost its parent (it killed its ranks first), 0 after the origin's end.
#include <unistd.h>

#include <charconv>
#include <cstdio>
#include <cstring>
#include <string>

#include "daemon.h"
#include "say.h"

namespace {

bool to_int(const char* s, int min, int& out) {
  int v = 0;
  auto [p, ec] = std::from_chars(s, s + strlen(s), v);
  if (ec != std::errc() || *p || v < min) return false;
  out = v;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace ftmpi::mpiexec;
  DaemonOptions o;
  char name[256] = {};
  gethostname(name, sizeof name - 1);
  std::string label = std::string("ftmpid[") + name + "]";
  set_say_name(label.c_str());
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (i + 1 >= argc) {
      say("option %s needs a value", a.c_str());
      return 1;
    }
    const char* v = argv[++i];
    bool ok = true;
    if (a == "--node") ok = to_int(v, 1, o.node);
    else if (a == "--parent") o.parent = v;
    else if (a == "--key") o.key = v;
    else if (a == "--fanout") ok = to_int(v, 1, o.shape.fanout);
    else if (a == "--nodes") ok = to_int(v, 2, o.shape.nodes);
    else if (a == "--period") ok = to_int(v, 1, o.period_ms);
    else if (a == "--timeout") ok = to_int(v, 2, o.timeout_ms);
    else if (a == "--startup") ok = to_int(v, 1, o.startup_ms);
    else if (a == "--ancestors") o.ancestors = v;
    else ok = false;
    if (!ok) {
      say("bad option %s %s (ftmpid is started by mpiexec, see docs/mpiexec.md)", a.c_str(), v);
      return 1;
    }
  }
  if (o.parent.empty() || o.key.empty() || o.node >= o.shape.nodes) {
    say("missing --parent/--key or bad --node (ftmpid is started by mpiexec)");
    return 1;
  }
  Daemon d(std::move(o));
  return d.run();
}
