# Sourced by bench/run.sh and bench/coll_run.sh: the peer MPIs and their compilers.
# Expects: $build (ftmpi build dir), $may_install (1: apt-get the peers when missing and root), say().
# Provides: ensure_peers, and the maps cc[impl] (compiler) and title[impl] (table heading).

# Install Open MPI and MPICH when missing (root only); keep going with what is there otherwise.
ensure_peers() {
  command -v mpicc.openmpi >/dev/null && command -v mpicc.mpich >/dev/null && return 0
  if [ "$may_install" = 1 ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    say "installing Open MPI and MPICH with apt-get"
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y -q openmpi-bin libopenmpi-dev mpich libmpich-dev >&2 ||
      { apt-get update -q >&2 && apt-get install -y -q openmpi-bin libopenmpi-dev mpich libmpich-dev >&2; } ||
      say "apt-get failed; continuing with what is installed"
  else
    say "Open MPI and/or MPICH missing (install openmpi-bin libopenmpi-dev mpich libmpich-dev as root)"
  fi
}

declare -A cc=([ftmpi]="$build/bin/mpicc" [openmpi]=mpicc.openmpi [mpich]=mpicc.mpich)
declare -A title=([ftmpi]="ftmpi" [openmpi]="Open MPI" [mpich]="MPICH")
