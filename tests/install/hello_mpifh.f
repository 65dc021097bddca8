C hello_mpifh.f -- the install tests' fixed-form Fortran 77 program through mpif.h (tests/install/).
C PASS: every rank prints exactly one line "hello from rank R of N" and exits 0.
      program hello
      implicit none
      include 'mpif.h'
      integer ierr, rank, nprocs, total
      call MPI_INIT(ierr)
      call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
      call MPI_COMM_SIZE(MPI_COMM_WORLD, nprocs, ierr)
      call MPI_ALLREDUCE(1, total, 1, MPI_INTEGER, MPI_SUM,
     &                   MPI_COMM_WORLD, ierr)
      if (total .ne. nprocs) stop 1
      write (*, '(a,i0,a,i0)') 'hello from rank ', rank, ' of ', nprocs
      call MPI_FINALIZE(ierr)
      end
