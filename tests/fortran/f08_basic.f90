! The mpi_f08 binding: TYPE(MPI_Comm)/TYPE(MPI_Status)/... handles, optional ierror, handle comparison,
! p2p (send/recv, isend/irecv/waitall, MPI_STATUS_IGNORE), collectives (bcast, allreduce SUM on
! DOUBLE COMPLEX and INTEGER with MPI_IN_PLACE, gather, alltoall, iallreduce), comm split/dup, a contiguous
! derived type, MPI_ERRORS_RETURN with error class and string, MPI_Comm_set_name/get_name (strings).
! Any rank count >= 2.
program f08_basic
  use mpi_f08
  implicit none
  integer :: ierr, rank, nprocs, i, errors, left, right, cnt, sub_size, cls, slen
  type(MPI_Status) :: st, sts(2)
  type(MPI_Request) :: reqs(2), req
  type(MPI_Comm) :: sub, dup
  type(MPI_Datatype) :: ctype
  integer :: ibuf(6), rbuf(6), ival, gath(64), sendall(64), recvall(64)
  double complex :: z, zsum
  character(len=MPI_MAX_ERROR_STRING) :: msg
  character(len=MPI_MAX_OBJECT_NAME) :: cname

  errors = 0
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  call check(ierr == MPI_SUCCESS, 'optional ierror present')
  left = mod(rank - 1 + nprocs, nprocs)
  right = mod(rank + 1, nprocs)

  ! p2p with TYPE(MPI_Status)
  if (rank == 0) then
    ibuf = (/ 1, 2, 3, 4, 5, 6 /)
    call MPI_Send(ibuf, 6, MPI_INTEGER, 1, 21, MPI_COMM_WORLD)
  else if (rank == 1) then
    call MPI_Recv(rbuf, 6, MPI_INTEGER, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, st)
    call check(st%MPI_SOURCE == 0 .and. st%MPI_TAG == 21, 'status fields')
    call MPI_Get_count(st, MPI_INTEGER, cnt)
    call check(cnt == 6 .and. rbuf(6) == 6, 'MPI_Get_count / values')
  end if

  ! ring with isend/irecv/waitall
  ival = rank
  call MPI_Irecv(rbuf, 1, MPI_INTEGER, left, 22, MPI_COMM_WORLD, reqs(1))
  call MPI_Isend(ival, 1, MPI_INTEGER, right, 22, MPI_COMM_WORLD, reqs(2))
  call MPI_Waitall(2, reqs, sts)
  call check(rbuf(1) == left .and. sts(1)%MPI_SOURCE == left, 'ring with TYPE(MPI_Status) array')
  call check(reqs(1) == MPI_REQUEST_NULL .and. reqs(2) == MPI_REQUEST_NULL, 'requests become MPI_REQUEST_NULL')
  call MPI_Irecv(rbuf, 1, MPI_INTEGER, left, 23, MPI_COMM_WORLD, reqs(1))
  call MPI_Isend(ival, 1, MPI_INTEGER, right, 23, MPI_COMM_WORLD, reqs(2))
  call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE)
  call MPI_Sendrecv(ival, 1, MPI_INTEGER, right, 24, rbuf, 1, MPI_INTEGER, left, 24, MPI_COMM_WORLD, &
                    MPI_STATUS_IGNORE)
  call check(rbuf(1) == left, 'MPI_Sendrecv with MPI_STATUS_IGNORE')

  ! collectives
  ibuf = 0
  if (rank == 0) ibuf = 9
  call MPI_Bcast(ibuf, 6, MPI_INTEGER, 0, MPI_COMM_WORLD)
  call check(all(ibuf == 9), 'MPI_Bcast')
  z = dcmplx(1.0d0, dble(rank))
  call MPI_Allreduce(z, zsum, 1, MPI_DOUBLE_COMPLEX, MPI_SUM, MPI_COMM_WORLD)
  call check(zsum == dcmplx(dble(nprocs), dble(nprocs * (nprocs - 1) / 2)), 'SUM on MPI_DOUBLE_COMPLEX')
  ival = 1
  call MPI_Allreduce(MPI_IN_PLACE, ival, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  call check(ival == nprocs, 'MPI_IN_PLACE')
  call MPI_Gather(rank, 1, MPI_INTEGER, gath, 1, MPI_INTEGER, 0, MPI_COMM_WORLD)
  if (rank == 0) call check(all(gath(1:nprocs) == (/ (i, i = 0, nprocs - 1) /)), 'MPI_Gather')
  sendall(1:nprocs) = (/ (i * 10 + rank, i = 0, nprocs - 1) /)
  call MPI_Alltoall(sendall, 1, MPI_INTEGER, recvall, 1, MPI_INTEGER, MPI_COMM_WORLD)
  call check(all(recvall(1:nprocs) == (/ (rank * 10 + i, i = 0, nprocs - 1) /)), 'MPI_Alltoall')
  ival = rank
  call MPI_Iallreduce(MPI_IN_PLACE, ival, 1, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD, req)
  call MPI_Wait(req, st)
  call check(ival == nprocs - 1, 'MPI_Iallreduce')

  ! communicators
  call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), rank, sub)
  call MPI_Comm_size(sub, sub_size)
  call check(sub_size == (nprocs + 1 - mod(rank, 2)) / 2, 'MPI_Comm_split')
  call MPI_Comm_dup(sub, dup)
  call check(dup /= sub .and. dup /= MPI_COMM_NULL, 'handle comparison')
  call MPI_Comm_set_name(dup, 'f08 dup')
  call MPI_Comm_get_name(dup, cname, slen)
  call check(cname == 'f08 dup' .and. slen == 7, 'MPI_Comm_set_name / get_name')
  call MPI_Comm_free(dup)
  call MPI_Comm_free(sub)
  call check(sub == MPI_COMM_NULL, 'MPI_Comm_free')

  ! a derived type
  call MPI_Type_contiguous(3, MPI_INTEGER, ctype)
  call MPI_Type_commit(ctype)
  ibuf = rank
  call MPI_Sendrecv(ibuf, 2, ctype, right, 25, rbuf, 2, ctype, left, 25, MPI_COMM_WORLD, st)
  call MPI_Get_count(st, ctype, cnt)
  call check(cnt == 2 .and. all(rbuf == left), 'contiguous derived type')
  call MPI_Type_free(ctype)

  ! errors returned, with class and string
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN)
  call MPI_Send(ival, 1, MPI_INTEGER, nprocs + 3, 0, MPI_COMM_WORLD, ierr)
  call MPI_Error_class(ierr, cls)
  call check(cls == MPI_ERR_RANK, 'MPI_ERR_RANK returned')
  call MPI_Error_string(ierr, msg, slen)
  call check(slen > 0 .and. len_trim(msg) == slen, 'MPI_Error_string')

  call MPI_Finalize()
  if (errors == 0) print '(a,i0)', 'PASS f08_basic rank ', rank

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
