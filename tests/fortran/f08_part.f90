! Partitioned communication through the mpi_f08 binding (generated from mpi.h): MPI_Psend_init with an
! INTEGER(MPI_COUNT_KIND) count, MPI_Pready, MPI_Pready_list, MPI_Pready_range, MPI_Parrived (LOGICAL flag),
! two rounds, 4 send partitions against 2 receive partitions. Ranks 0 and 1; any rank count >= 2.
! The buffer is ASYNCHRONOUS (MPI-3.1 §17.1.17): MPI writes it during MPI_Parrived and MPI_Wait, which do not name
! it, so without the attribute an optimizing compiler may keep its old values in registers.
program f08_part
  use mpi_f08
  implicit none
  integer :: rank, round, i, errors
  integer, asynchronous :: buf(16)
  integer :: list(2)
  integer(kind=MPI_COUNT_KIND) :: cnt
  logical :: flag
  type(MPI_Request) :: req
  type(MPI_Status) :: st

  errors = 0
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  if (rank == 0) then
    cnt = 4
    call MPI_Psend_init(buf, 4, cnt, MPI_INTEGER, 1, 5, MPI_COMM_WORLD, MPI_INFO_NULL, req)
    do round = 1, 2
      call MPI_Start(req)
      buf = (/ (i * round, i = 1, 16) /)
      call MPI_Pready(3, req)
      list = (/ 2, 0 /)
      call MPI_Pready_list(2, list, req)
      call MPI_Pready_range(1, 1, req)
      call MPI_Wait(req, MPI_STATUS_IGNORE)
    end do
    call MPI_Request_free(req)
  else if (rank == 1) then
    cnt = 8
    call MPI_Precv_init(buf, 2, cnt, MPI_INTEGER, 0, 5, MPI_COMM_WORLD, MPI_INFO_NULL, req)
    do round = 1, 2
      buf = -1
      call MPI_Start(req)
      flag = .false.
      do while (.not. flag)
        call MPI_Parrived(req, 1, flag)
      end do
      call check(all(buf(9:16) == (/ (i * round, i = 9, 16) /)), 'partition 1 when Parrived says so')
      call MPI_Wait(req, st)
      call check(st%MPI_SOURCE == 0 .and. st%MPI_TAG == 5, 'status')
      call check(all(buf == (/ (i * round, i = 1, 16) /)), 'whole message')
    end do
    call MPI_Request_free(req)
  end if
  call MPI_Finalize()
  if (errors == 0) print '(a,i0)', 'PASS f08_part rank ', rank

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
