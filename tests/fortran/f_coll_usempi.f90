! Collectives, communicators, datatypes and callbacks through `use mpi`: bcast, reduce/allreduce with
! MPI_SUM on INTEGER, REAL, DOUBLE PRECISION and COMPLEX, MPI_IN_PLACE, LAND/LOR on LOGICAL, MAXLOC on
! MPI_2REAL, gather, alltoall, comm split/dup/compare/free, a vector type, a user op written in Fortran
! (MPI_Op_create), a Fortran error handler, and MPI_TAG_UB as a value.  Any rank count >= 2.
module f_coll_ops
  implicit none
contains
  ! user op: inout = max(|in|, |inout|) elementwise on INTEGERs
  subroutine absmax(invec, inoutvec, len, datatype)
    integer :: len, datatype
    integer :: invec(len), inoutvec(len)
    integer :: i
    do i = 1, len
      inoutvec(i) = max(abs(invec(i)), abs(inoutvec(i)))
    end do
  end subroutine
end module

module f_coll_errh
  implicit none
  integer :: calls = 0, last_code = 0
contains
  subroutine my_handler(comm, code)
    integer :: comm, code
    calls = calls + 1
    last_code = code
  end subroutine
end module

program f_coll_usempi
  use mpi
  use f_coll_ops
  use f_coll_errh
  implicit none
  integer :: ierr, rank, nprocs, i, errors, color, sub, subsize, subrank, dup, res, vtype, op, eh
  integer :: ival, isum, ibuf(8), gath(64), sendall(64), recvall(64), cls
  real :: rval, rsum, pair(2), pairres(2)
  double precision :: dval, dsum
  complex :: cval, csum
  logical :: lval, lres
  integer(kind=MPI_ADDRESS_KIND) :: tag_ub
  logical :: flag

  errors = 0
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)

  ! bcast from rank 1
  ibuf = 0
  if (rank == 1) ibuf = (/ (i * 3, i = 1, 8) /)
  call MPI_Bcast(ibuf, 8, MPI_INTEGER, 1, MPI_COMM_WORLD, ierr)
  call check(ierr == MPI_SUCCESS .and. ibuf(8) == 24 .and. ibuf(1) == 3, 'MPI_Bcast INTEGER')

  ! reduce SUM on REAL to root 0, allreduce SUM on INTEGER / DOUBLE PRECISION / COMPLEX
  rval = real(rank + 1)
  call MPI_Reduce(rval, rsum, 1, MPI_REAL, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0) call check(rsum == real(nprocs * (nprocs + 1) / 2), 'MPI_Reduce SUM REAL')
  ival = rank + 1
  call MPI_Allreduce(ival, isum, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call check(isum == nprocs * (nprocs + 1) / 2, 'MPI_Allreduce SUM INTEGER')
  dval = 0.25d0 * rank
  call MPI_Allreduce(dval, dsum, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  call check(dsum == 0.25d0 * (nprocs * (nprocs - 1) / 2), 'MPI_Allreduce SUM DOUBLE PRECISION')
  cval = cmplx(real(rank), 1.0)
  call MPI_Allreduce(cval, csum, 1, MPI_COMPLEX, MPI_SUM, MPI_COMM_WORLD, ierr)
  call check(csum == cmplx(real(nprocs * (nprocs - 1) / 2), real(nprocs)), 'MPI_Allreduce SUM COMPLEX')

  ! MPI_IN_PLACE
  ival = rank
  call MPI_Allreduce(MPI_IN_PLACE, ival, 1, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD, ierr)
  call check(ierr == MPI_SUCCESS .and. ival == nprocs - 1, 'MPI_Allreduce MPI_IN_PLACE MAX')

  ! LOGICAL: LAND of all .true., LOR of only rank 0's .true.
  lval = .true.
  call MPI_Allreduce(lval, lres, 1, MPI_LOGICAL, MPI_LAND, MPI_COMM_WORLD, ierr)
  call check(ierr == MPI_SUCCESS .and. lres, 'MPI_LAND on LOGICAL')
  lval = rank == 0
  call MPI_Allreduce(lval, lres, 1, MPI_LOGICAL, MPI_LOR, MPI_COMM_WORLD, ierr)
  call check(lres, 'MPI_LOR on LOGICAL')
  lval = rank == 0
  call MPI_Allreduce(lval, lres, 1, MPI_LOGICAL, MPI_LAND, MPI_COMM_WORLD, ierr)
  call check(.not. lres, 'MPI_LAND on LOGICAL (one .true.)')

  ! MAXLOC on MPI_2REAL: the value 10 - |rank - 1| peaks at rank 1
  pair(1) = 10.0 - abs(rank - 1)
  pair(2) = real(rank)
  call MPI_Allreduce(pair, pairres, 1, MPI_2REAL, MPI_MAXLOC, MPI_COMM_WORLD, ierr)
  call check(pairres(1) == 10.0 .and. pairres(2) == 1.0, 'MPI_MAXLOC on MPI_2REAL')

  ! gather to the last rank
  ival = rank * 2
  gath = -1
  call MPI_Gather(ival, 1, MPI_INTEGER, gath, 1, MPI_INTEGER, nprocs - 1, MPI_COMM_WORLD, ierr)
  if (rank == nprocs - 1) then
    do i = 1, nprocs
      if (gath(i) /= (i - 1) * 2) call check(.false., 'MPI_Gather')
    end do
  end if

  ! alltoall: to rank i goes i*100+rank
  do i = 1, nprocs
    sendall(i) = (i - 1) * 100 + rank
  end do
  call MPI_Alltoall(sendall, 1, MPI_INTEGER, recvall, 1, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  do i = 1, nprocs
    if (recvall(i) /= rank * 100 + (i - 1)) call check(.false., 'MPI_Alltoall')
  end do

  ! split even/odd, dup, compare, free
  color = mod(rank, 2)
  call MPI_Comm_split(MPI_COMM_WORLD, color, -rank, sub, ierr)
  call MPI_Comm_size(sub, subsize, ierr)
  call MPI_Comm_rank(sub, subrank, ierr)
  call check(subsize == (nprocs + 1 - color) / 2, 'MPI_Comm_split size')
  call MPI_Allreduce(rank, isum, 1, MPI_INTEGER, MPI_MIN, sub, ierr)
  call check(isum == color, 'allreduce on the split communicator')
  call check(subrank == subsize - 1 - rank / 2, 'MPI_Comm_split key order')
  call MPI_Comm_dup(sub, dup, ierr)
  call MPI_Comm_compare(sub, dup, res, ierr)
  call check(res == MPI_CONGRUENT, 'MPI_Comm_compare of a dup')
  call MPI_Comm_free(dup, ierr)
  call check(dup == MPI_COMM_NULL, 'MPI_Comm_free sets MPI_COMM_NULL')
  call MPI_Comm_free(sub, ierr)

  ! a vector type: elements 1, 3, 5 of rank 0's array to rank 1
  call MPI_Type_vector(3, 1, 2, MPI_INTEGER, vtype, ierr)
  call MPI_Type_commit(vtype, ierr)
  if (rank == 0) then
    ibuf = (/ 1, 2, 3, 4, 5, 6, 7, 8 /)
    call MPI_Send(ibuf, 1, vtype, 1, 3, MPI_COMM_WORLD, ierr)
  else if (rank == 1) then
    ibuf = 0
    call MPI_Recv(ibuf, 3, MPI_INTEGER, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    call check(ibuf(1) == 1 .and. ibuf(2) == 3 .and. ibuf(3) == 5 .and. ibuf(4) == 0, 'vector type')
  end if
  call MPI_Type_free(vtype, ierr)

  ! a user op written in Fortran
  call MPI_Op_create(absmax, .true., op, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_Op_create')
  ibuf(1) = -rank * 10
  ibuf(2) = rank
  call MPI_Allreduce(ibuf, gath, 2, MPI_INTEGER, op, MPI_COMM_WORLD, ierr)
  call check(gath(1) == (nprocs - 1) * 10 .and. gath(2) == nprocs - 1, 'user op (Fortran) in MPI_Allreduce')
  call MPI_Op_free(op, ierr)
  call check(op == MPI_OP_NULL, 'MPI_Op_free')

  ! a Fortran error handler, called on an invalid rank
  call MPI_Comm_dup(MPI_COMM_WORLD, dup, ierr)
  call MPI_Comm_create_errhandler(my_handler, eh, ierr)
  call MPI_Comm_set_errhandler(dup, eh, ierr)
  call MPI_Send(ival, 1, MPI_INTEGER, nprocs + 5, 0, dup, ierr)
  call check(ierr /= MPI_SUCCESS .and. calls == 1, 'Fortran error handler called')
  call MPI_Error_class(last_code, cls, ierr)
  call check(cls == MPI_ERR_RANK, 'error handler got MPI_ERR_RANK')
  call MPI_Errhandler_free(eh, ierr)
  call MPI_Comm_free(dup, ierr)

  ! MPI_TAG_UB: a value in Fortran
  call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, tag_ub, flag, ierr)
  call check(flag .and. tag_ub >= 32767, 'MPI_TAG_UB attribute')

  call MPI_Finalize(ierr)
  if (errors == 0) print '(a,i0)', 'PASS f_coll_usempi rank ', rank

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
