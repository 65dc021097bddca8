! hello_f08.f90 — the install tests' Fortran program through `use mpi_f08` (tests/install/).
! PASS: every rank prints exactly one line "hello from rank R of N" and exits 0.
program hello_f08
  use mpi_f08
  implicit none
  integer :: rank, nprocs
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
  print '(a,i0,a,i0)', 'hello from rank ', rank, ' of ', nprocs
  call MPI_Finalize()
end program
