! Point-to-point through mpif.h (the MPI-1 style binding): blocking send/recv with status fields and
! MPI_Get_count, MPI_ANY_SOURCE/MPI_ANY_TAG, isend/irecv/waitall with statuses, probe/iprobe, sendrecv,
! MPI_STATUS_IGNORE / MPI_STATUSES_IGNORE.  Any rank count >= 2.  Prints PASS, or FAIL lines.
program f_p2p_mpifh
  implicit none
  include 'mpif.h'
  integer :: ierr, rank, nprocs, i, left, right, cnt, errors
  integer :: status(MPI_STATUS_SIZE), statuses(MPI_STATUS_SIZE, 2), reqs(2)
  double precision :: dbuf(100)
  integer :: ibuf(10), rbuf(10), sval, rval
  logical :: flag
  double precision :: t0

  errors = 0
  call MPI_Init(ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_Init ierror')
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  t0 = MPI_Wtime()
  left = mod(rank - 1 + nprocs, nprocs)
  right = mod(rank + 1, nprocs)

  ! 1. blocking: rank 0 sends 100 doubles (tag 7) to every other rank, received with MPI_ANY_TAG (rank 0's
  !    first message to each rank; the ring below matches MPI_ANY_SOURCE on its own tag)
  if (rank == 0) then
    do i = 1, 100
      dbuf(i) = 0.5d0 * i
    end do
    do i = 1, nprocs - 1
      call MPI_Send(dbuf, 100, MPI_DOUBLE_PRECISION, i, 7, MPI_COMM_WORLD, ierr)
      call check(ierr == MPI_SUCCESS, 'MPI_Send ierror')
    end do
  else
    dbuf = -1.0d0
    call MPI_Recv(dbuf, 100, MPI_DOUBLE_PRECISION, 0, MPI_ANY_TAG, MPI_COMM_WORLD, status, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Recv ierror')
    call check(status(MPI_SOURCE) == 0, 'status(MPI_SOURCE)')
    call check(status(MPI_TAG) == 7, 'status(MPI_TAG)')
    call MPI_Get_count(status, MPI_DOUBLE_PRECISION, cnt, ierr)
    call check(cnt == 100, 'MPI_Get_count')
    do i = 1, 100
      if (dbuf(i) /= 0.5d0 * i) call check(.false., 'received doubles')
    end do
  end if

  ! 2. non-blocking ring with MPI_Waitall and statuses
  do i = 1, 10
    ibuf(i) = rank * 1000 + i
  end do
  rbuf = -1
  call MPI_Irecv(rbuf, 10, MPI_INTEGER, MPI_ANY_SOURCE, 11, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Isend(ibuf, 10, MPI_INTEGER, right, 11, MPI_COMM_WORLD, reqs(2), ierr)
  call MPI_Waitall(2, reqs, statuses, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_Waitall ierror')
  call check(reqs(1) == MPI_REQUEST_NULL .and. reqs(2) == MPI_REQUEST_NULL, 'requests set to MPI_REQUEST_NULL')
  call check(statuses(MPI_SOURCE, 1) == left, 'statuses(MPI_SOURCE, 1)')
  call check(statuses(MPI_TAG, 1) == 11, 'statuses(MPI_TAG, 1)')
  do i = 1, 10
    if (rbuf(i) /= left * 1000 + i) call check(.false., 'ring values')
  end do

  ! the same with MPI_STATUSES_IGNORE
  call MPI_Irecv(rbuf, 10, MPI_INTEGER, left, 12, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Isend(ibuf, 10, MPI_INTEGER, right, 12, MPI_COMM_WORLD, reqs(2), ierr)
  call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE, ierr)
  call check(ierr == MPI_SUCCESS .and. rbuf(10) == left * 1000 + 10, 'Waitall with MPI_STATUSES_IGNORE')

  ! 3. probe: a message of rank+1 integers with tag rank to the right neighbour
  sval = rank
  call MPI_Isend(ibuf, rank + 1, MPI_INTEGER, right, 100 + rank, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, status, ierr)
  call check(status(MPI_SOURCE) == left .and. status(MPI_TAG) == 100 + left, 'MPI_Probe status')
  call MPI_Get_count(status, MPI_INTEGER, cnt, ierr)
  call check(cnt == left + 1, 'MPI_Get_count after probe')
  flag = .false.
  do while (.not. flag)
    call MPI_Iprobe(left, 100 + left, MPI_COMM_WORLD, flag, status, ierr)
  end do
  call MPI_Recv(ibuf, cnt, MPI_INTEGER, left, 100 + left, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_Recv with MPI_STATUS_IGNORE')
  call MPI_Wait(reqs(1), MPI_STATUS_IGNORE, ierr)

  ! 4. sendrecv
  sval = rank
  rval = -1
  call MPI_Sendrecv(sval, 1, MPI_INTEGER, right, 5, rval, 1, MPI_INTEGER, left, 5, MPI_COMM_WORLD, status, ierr)
  call check(rval == left .and. status(MPI_SOURCE) == left, 'MPI_Sendrecv')

  call check(MPI_Wtime() >= t0, 'MPI_Wtime')
  call MPI_Finalize(ierr)
  if (errors == 0) then
    print '(a,i0)', 'PASS f_p2p_mpifh rank ', rank
  end if

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
