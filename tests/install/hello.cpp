// hello.cpp — C++ program including mpi.h, built with mpicxx by the install tests (tests/install/).
// PASS: every rank prints exactly one line "hello from rank R of N" and exits 0.
#include <mpi.h>

#include <cstdio>
#include <string>

int main(int argc, char **argv) {
  if (MPI_Init(&argc, &argv) != MPI_SUCCESS) return 1;
  int rank = -1, size = -1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const std::string line = "hello from rank " + std::to_string(rank) + " of " + std::to_string(size);
  std::printf("%s\n", line.c_str());
  std::fflush(stdout);
  MPI_Finalize();
  return 0;
}
