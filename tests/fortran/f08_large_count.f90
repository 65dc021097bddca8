! MPI-4.0 §19.3.5 through mpi_f08: a count of kind MPI_COUNT_KIND reaches the large-count form by the plain name
! (MPI_Send, MPI_Recv, MPI_Bcast, MPI_Get_count with INTEGER(KIND=MPI_COUNT_KIND) arguments), as MPICH's
! f08/pt2pt/pt2pt_largef08 calls them; the default-INTEGER forms still resolve. Any rank count >= 2.
! Prints PASS, or FAIL lines.
program f08_large_count
  use mpi_f08
  implicit none
  integer :: rank, errs, all, buf(8), i, n4
  integer(kind=MPI_COUNT_KIND) :: cnt, got
  type(MPI_Status) :: st

  errs = 0
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  cnt = 8
  buf = rank
  if (rank == 0) then
    buf = (/ (i, i = 1, 8) /)
    call MPI_Send(buf, cnt, MPI_INTEGER, 1, 5, MPI_COMM_WORLD)
  else if (rank == 1) then
    call MPI_Recv(buf, cnt, MPI_INTEGER, 0, 5, MPI_COMM_WORLD, st)
    call MPI_Get_count(st, MPI_INTEGER, got)
    if (got /= 8 .or. any(buf /= (/ (i, i = 1, 8) /))) call fail('large-count Send/Recv/Get_count', int(got))
    call MPI_Get_count(st, MPI_INTEGER, n4)
    if (n4 /= 8) call fail('default-integer MPI_Get_count', n4)
  end if
  buf = rank
  call MPI_Bcast(buf, cnt, MPI_INTEGER, 0, MPI_COMM_WORLD)
  if (any(buf /= 0)) call fail('large-count MPI_Bcast', buf(1))
  call MPI_Allreduce(errs, all, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (rank == 0) then
    if (all == 0) then
      print '(a)', 'PASS'
    else
      print '(a,i0,a)', 'FAIL: ', all, ' problems'
    end if
  end if
  call MPI_Finalize()
  if (all /= 0) stop 1
contains
  subroutine fail(what, v)
    character(len=*) :: what
    integer :: v
    print '(a,a,a,i0)', 'FAIL: ', what, ': ', v
    errs = errs + 1
  end subroutine
end program
