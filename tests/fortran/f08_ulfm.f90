! ULFM from Fortran (mpi_f08, as with Open MPI's ULFM): the last rank kills itself with SIGKILL after a
! barrier; the survivors loop on MPI_Allreduce until it fails (MPIX_ERR_PROC_FAILED or MPIX_ERR_REVOKED),
! revoke, shrink, check the shrunken communicator (size, an allreduce over it), acknowledge and inspect the
! failed group, and agree (MPIX_Comm_agree: the AND of the flags, the same at every survivor).
! Run with mpiexec --with-ft ulfm, 3 or more ranks.  Each survivor prints PASS, or FAIL lines.
program f08_ulfm
  use mpi_f08
  use mpi_ext
  use, intrinsic :: iso_c_binding, only: c_int
  implicit none
  interface
    function c_getpid() bind(C, name="getpid") result(pid)
      import :: c_int
      integer(c_int) :: pid
    end function
    function c_kill(pid, sig) bind(C, name="kill") result(r)
      import :: c_int
      integer(c_int), value :: pid, sig
      integer(c_int) :: r
    end function
  end interface
  type(MPI_Comm) :: world, shrunk
  type(MPI_Group) :: failed
  integer :: rank, nprocs, victim, ierr, cls, i, x, sum, nsize, flag, gsize, nacked, errors
  integer(c_int) :: rc

  errors = 0
  call MPI_Init()
  call MPI_Comm_dup(MPI_COMM_WORLD, world)
  call MPI_Comm_set_errhandler(world, MPI_ERRORS_RETURN)
  call MPI_Comm_rank(world, rank)
  call MPI_Comm_size(world, nprocs)
  victim = nprocs - 1
  call MPI_Barrier(world)
  if (rank == victim) rc = c_kill(c_getpid(), 9_c_int)

  ierr = MPI_SUCCESS
  do i = 1, 1000000
    x = 1
    call MPI_Allreduce(x, sum, 1, MPI_INTEGER, MPI_SUM, world, ierr)
    if (ierr /= MPI_SUCCESS) exit
  end do
  call MPI_Error_class(ierr, cls)
  call check(cls == MPIX_ERR_PROC_FAILED .or. cls == MPIX_ERR_REVOKED, 'allreduce fails with PROC_FAILED or REVOKED')

  call MPIX_Comm_revoke(world, ierr)
  call check(ierr == MPI_SUCCESS, 'MPIX_Comm_revoke')
  call MPI_Barrier(world, ierr)
  call MPI_Error_class(ierr, cls)
  call check(cls == MPIX_ERR_REVOKED, 'a revoked communicator reports MPIX_ERR_REVOKED')

  call MPIX_Comm_shrink(world, shrunk, ierr)
  call check(ierr == MPI_SUCCESS, 'MPIX_Comm_shrink')
  call MPI_Comm_size(shrunk, nsize)
  call check(nsize == nprocs - 1, 'shrunken size')
  call MPI_Comm_set_errhandler(shrunk, MPI_ERRORS_RETURN)
  x = 1
  call MPI_Allreduce(x, sum, 1, MPI_INTEGER, MPI_SUM, shrunk, ierr)
  call check(ierr == MPI_SUCCESS .and. sum == nprocs - 1, 'allreduce over the shrunken communicator')

  ! the failed process, as the acknowledgement calls see it
  call MPIX_Comm_failure_ack(world, ierr)
  call check(ierr == MPI_SUCCESS, 'MPIX_Comm_failure_ack')
  call MPIX_Comm_failure_get_acked(world, failed, ierr)
  call MPI_Group_size(failed, gsize)
  call check(ierr == MPI_SUCCESS .and. gsize == 1, 'MPIX_Comm_failure_get_acked: one failed process')
  call MPI_Group_free(failed)
  call MPIX_Comm_get_failed(world, failed, ierr)
  call MPI_Group_size(failed, gsize)
  call check(ierr == MPI_SUCCESS .and. gsize == 1, 'MPIX_Comm_get_failed: one failed process')
  call MPI_Group_free(failed)
  call MPIX_Comm_ack_failed(world, nprocs, nacked, ierr)
  call check(ierr == MPI_SUCCESS .and. nacked == 1, 'MPIX_Comm_ack_failed')

  ! agreement: the AND of the flags (rank 0 clears bit 2)
  flag = 7
  if (rank == 0) flag = 5
  call MPIX_Comm_agree(shrunk, flag, ierr)
  call check(ierr == MPI_SUCCESS .and. flag == 5, 'MPIX_Comm_agree')

  call MPI_Comm_free(shrunk)
  call MPI_Comm_free(world)
  call MPI_Finalize()
  if (errors == 0) print '(a,i0)', 'PASS f08_ulfm rank ', rank

contains
  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    if (.not. ok) then
      errors = errors + 1
      print '(a,i0,2a)', 'FAIL rank ', rank, ': ', what
    end if
  end subroutine
end program
