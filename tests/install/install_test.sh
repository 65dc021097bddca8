#!/usr/bin/env bash
# install_test.sh — checks that ftmpi is usable the way users use an MPI (run by CTest, label "install").
#
# usage: install_test.sh <mode> <source dir> <build dir>
#   prefix        cmake --install into a temporary prefix, move the prefix (relocatable), check the layout,
#                 build hello.c with the installed mpicc and hello.cpp with mpicxx (and, with the Fortran
#                 bindings, hello_f08.f90 with mpifort and hello_mpifh.f with mpif77), run them with the
#                 installed mpiexec -n 4
#   build-tree    the same with <build dir>/bin/mpicc, mpicxx and mpiexec
#   pkg-config    cc $(pkg-config --cflags --libs mpi) hello.c, for the build tree and an installed prefix
#   find-package  a small CMake project (find_package/) with the installed wrappers first on PATH:
#                 FindMPI must pick our wrappers, and the project must configure, build and run
# Environment (set by tests/install/CMakeLists.txt): CMAKE_COMMAND, FTMPI_TEST_CC / FTMPI_TEST_CXX (the
# compiler and flags the library was built with, e.g. sanitizers), FTMPI_TEST_GENERATOR.
# Exit 0 = pass, 77 = skipped (a tool is missing), anything else = fail.  Leaves nothing behind: every file
# lives in one temporary directory removed on exit, every job runs under a timeout.
set -euo pipefail

mode=${1:?mode}
src=$(cd "${2:?source dir}" && pwd -P)
build=$(cd "${3:?build dir}" && pwd -P)
cmake=${CMAKE_COMMAND:-cmake}
export FTMPI_CC=${FTMPI_TEST_CC:-cc}
export FTMPI_CXX=${FTMPI_TEST_CXX:-c++}
nranks=4

work=$(mktemp -d "${TMPDIR:-/tmp}/ftmpi-install-test.XXXXXX")
trap 'rm -rf "$work"' EXIT

fail() { echo "FAIL ($mode): $*" >&2; exit 1; }
skip() { echo "SKIP ($mode): $*" >&2; exit 77; }
step() { echo "--- $*"; }

libdir_name() {
  local v
  v=$(sed -n 's/^CMAKE_INSTALL_LIBDIR:[A-Z]*=//p' "$build/CMakeCache.txt")
  echo "${v:-lib}"
}

# install_to <dir>: cmake --install into a staging dir, then move it to <dir> (the prefix must be relocatable).
install_to() {
  local dest=$1
  step "cmake --install $build --prefix $work/staging"
  "$cmake" --install "$build" --prefix "$work/staging" >"$work/install.log" 2>&1 ||
    { cat "$work/install.log" >&2; fail "cmake --install failed"; }
  mv "$work/staging" "$dest"
}

check_layout() {
  local p=$1 lib
  lib=$(libdir_name)
  for f in bin/mpicc bin/mpicxx bin/mpiexec bin/mpirun bin/ftmpi-info; do
    [ -x "$p/$f" ] || fail "missing executable $p/$f"
  done
  for f in include/mpi.h "$lib/libmpi.so" "$lib/pkgconfig/mpi.pc"; do
    [ -e "$p/$f" ] || fail "missing $p/$f"
  done
  if [ -e "$build/lib/libmpi_fortran.so" ]; then
    for f in bin/mpifort bin/mpif90 bin/mpif77 include/mpif.h include/mpif-ext.h include/mpi.mod include/mpi_f08.mod \
             include/mpi_ext.mod include/mpi_constants.mod include/mpi_ext_constants.mod "$lib/libmpi_fortran.so"; do
      [ -e "$p/$f" ] || fail "missing $p/$f"
    done
  fi
  "$p/bin/ftmpi-info" --version >/dev/null || fail "ftmpi-info --version failed"
}

# check_show <bindir> <incdir> <libdir>: the wrappers' query options print the right paths.
check_show() {
  local bin=$1 inc=$2 lib=$3 out
  out=$("$bin/mpicc" -show hello.c)
  [ "$out" = "$FTMPI_CC -I$inc hello.c -L$lib -Wl,-rpath,$lib -lmpi -lm" ] || fail "mpicc -show printed: $out"
  out=$("$bin/mpicc" -show -c hello.c)
  [ "$out" = "$FTMPI_CC -I$inc -c hello.c" ] || fail "mpicc -show -c printed: $out"
  out=$("$bin/mpicxx" --showme:compile)
  [ "$out" = "-I$inc" ] || fail "mpicxx --showme:compile printed: $out"
  out=$("$bin/mpicxx" --showme:link)
  [ "$out" = "-L$lib -Wl,-rpath,$lib -lmpi" ] || fail "mpicxx --showme:link printed: $out"
}

# run_job <mpiexec> <program>: runs it on $nranks ranks and checks that every rank greeted exactly once.
run_job() {
  local mpiexec=$1 prog=$2 out r
  step "$mpiexec -n $nranks $prog"
  out=$(timeout -k 5 90 "$mpiexec" --timeout 60 -n "$nranks" "$prog") || fail "job $prog failed (status $?): $out"
  echo "$out"
  [ "$(printf '%s\n' "$out" | grep -c '^hello from rank ')" -eq "$nranks" ] || fail "expected $nranks greetings"
  for ((r = 0; r < nranks; r++)); do
    # A here-string, not `printf | grep -q`: under pipefail, grep -q leaving early can fail the pipeline
    # with SIGPIPE on its writer (seen 2 in 20000 on a loaded machine; CI failed once on it).
    grep -qx "hello from rank $r of $nranks" <<<"$out" || fail "rank $r did not greet"
  done
}

# build_and_run <bindir>: hello.c with mpicc, hello.cpp with mpicxx (separate compile and link for C), run both.
build_and_run() {
  local bin=$1
  step "$bin/mpicc / mpicxx"
  "$bin/mpicc" -O2 -c "$src/tests/install/hello.c" -o "$work/hello.o"
  "$bin/mpicc" "$work/hello.o" -o "$work/hello_c"
  "$bin/mpicxx" -O2 "$src/tests/install/hello.cpp" -o "$work/hello_cxx"
  run_job "$bin/mpiexec" "$work/hello_c"
  run_job "$bin/mpiexec" "$work/hello_cxx"
  # Fortran, when the build has it: use mpi_f08 with mpifort, fixed-form mpif.h with mpif77.
  if [ -x "$bin/mpifort" ]; then
    step "$bin/mpifort / mpif77"
    "$bin/mpifort" -O2 "$src/tests/install/hello_f08.f90" -o "$work/hello_f08"
    "$bin/mpif77" -O2 "$src/tests/install/hello_mpifh.f" -o "$work/hello_mpifh"
    run_job "$bin/mpiexec" "$work/hello_f08"
    run_job "$bin/mpiexec" "$work/hello_mpifh"
  fi
}

case $mode in
  prefix)
    install_to "$work/prefix"
    p=$work/prefix
    check_layout "$p"
    check_show "$p/bin" "$p/include" "$p/$(libdir_name)"
    # A symlink to the wrapper (as in /usr/local/bin/mpicc -> <prefix>/bin/mpicc) still finds the prefix.
    mkdir -p "$work/links" && ln -s "$p/bin/mpicc" "$work/links/mpicc"
    check_out=$("$work/links/mpicc" --showme:incdirs)
    [ "$check_out" = "$p/include" ] || fail "symlinked mpicc found include dir $check_out"
    build_and_run "$p/bin"
    ;;
  build-tree)
    check_show "$build/bin" "$src/include" "$build/lib"
    build_and_run "$build/bin"
    ;;
  pkg-config)
    command -v pkg-config >/dev/null || skip "pkg-config is not installed"
    install_to "$work/prefix"
    n=0
    for pcdir in "$build/lib/pkgconfig" "$work/prefix/$(libdir_name)/pkgconfig"; do
      flags=$(PKG_CONFIG_PATH=$pcdir pkg-config --cflags --libs mpi) || fail "pkg-config found no mpi in $pcdir"
      step "$FTMPI_CC hello.c $flags"
      n=$((n + 1))
      # shellcheck disable=SC2086  # the compiler and the flags are word lists
      $FTMPI_CC "$src/tests/install/hello.c" -o "$work/hello_pc$n" $flags
      run_job "$build/bin/mpiexec" "$work/hello_pc$n"
    done
    ;;
  find-package)
    install_to "$work/prefix"
    p=$work/prefix
    gen=()
    [ -n "${FTMPI_TEST_GENERATOR:-}" ] && gen=(-G "$FTMPI_TEST_GENERATOR")
    step "configure find_package(MPI) project with $p/bin first on PATH"
    (
      unset MPI_HOME MPI_ROOT
      PATH=$p/bin:$PATH "$cmake" -S "$src/tests/install/find_package" -B "$work/fp" "${gen[@]}" \
        -DCMAKE_C_COMPILER="${FTMPI_CC%% *}" -DCMAKE_CXX_COMPILER="${FTMPI_CXX%% *}" \
        -DCMAKE_C_FLAGS="$(echo "$FTMPI_CC" | cut -s -d' ' -f2-)" \
        -DCMAKE_CXX_FLAGS="$(echo "$FTMPI_CXX" | cut -s -d' ' -f2-)"
    ) >"$work/fp.log" 2>&1 || { cat "$work/fp.log" >&2; fail "configure failed"; }
    grep 'find_package(MPI)' "$work/fp.log"
    cached=$(sed -n 's/^MPI_C_COMPILER:[A-Z]*=//p' "$work/fp/CMakeCache.txt")
    [ "$cached" = "$p/bin/mpicc" ] || fail "FindMPI chose MPI_C_COMPILER=$cached, not $p/bin/mpicc"
    "$cmake" --build "$work/fp" >"$work/fp-build.log" 2>&1 || { cat "$work/fp-build.log" >&2; fail "build failed"; }
    run_job "$p/bin/mpiexec" "$work/fp/hello_c"
    run_job "$p/bin/mpiexec" "$work/fp/hello_cxx"
    ;;
  *)
    echo "usage: $0 prefix|build-tree|pkg-config|find-package <source dir> <build dir>" >&2
    exit 2
    ;;
esac
echo "PASS ($mode)"
