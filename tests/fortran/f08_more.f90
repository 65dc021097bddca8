! More of the generated mpi_f08 binding: strings both ways (Info, processor name, library version),
! Waitany/Waitsome (1-based indices), Testall, Request_get_status, Comm_idup (a handle written at completion),
! Cart_create/Cart_get with LOGICAL periods and Cart_shift, Type_create_struct with Get_address and
! MPI_ADDRESS_KIND displacements, Type_get_envelope, Pack/Unpack, Gatherv/Scatterv, Alltoallw (datatype
! arrays), Reduce_scatter_block, Scan, group operations and Comm_create, MPI_TAG_UB, and a user op with the
! mpi_f08 callback signature (TYPE(C_PTR), VALUE buffers).  Any rank count >= 2.
module f08_more_ops
  use mpi_f08
  use, intrinsic :: iso_c_binding, only: c_ptr, c_f_pointer
  implicit none
contains
  subroutine prod_plus_one(invec, inoutvec, len, datatype)
    type(c_ptr), value :: invec, inoutvec
    integer :: len
    type(MPI_Datatype) :: datatype
    integer, pointer :: a(:), b(:)
    call c_f_pointer(invec, a, (/ len /))
    call c_f_pointer(inoutvec, b, (/ len /))
    if (datatype == MPI_INTEGER) b = a + b + 1
  end subroutine
end module

program f08_more
  use mpi_f08
  use f08_more_ops
  implicit none
  integer :: rank, nprocs, errors, i, idx, outcount, indices(4), ierr, vlen, n, nint, nadd, ndt, comb, pos
  integer :: dims(1), coords(1), src, dst, ival, ibuf(64), rbuf(64), counts(64), displs(64), scnt(64)
  integer :: sdis(64), rdis(64), ranks(2), gsize, total, nkeys
  logical :: periods(1), flag, flag2
  character(len=MPI_MAX_PROCESSOR_NAME) :: pname
  character(len=MPI_MAX_LIBRARY_VERSION_STRING) :: version
  character(len=64) :: val
  character(len=MPI_MAX_INFO_KEY) :: key
  type(MPI_Info) :: info
  type(MPI_Request) :: reqs(4), req
  type(MPI_Status) :: st, sts(4)
  type(MPI_Comm) :: cart, dup, sub
  type(MPI_Datatype) :: stype, types(64)
  type(MPI_Group) :: world_group, pair_group
  type(MPI_Op) :: op
  integer(kind=MPI_ADDRESS_KIND) :: base, addr(2), disp(2), tag_ub
  character(len=1) :: packbuf(64)
  type :: rec
    integer :: i
    double precision :: d
  end type
  type(rec) :: r_out, r_in

  errors = 0
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)

  ! strings
  call MPI_Get_processor_name(pname, n)
  call check(n > 0 .and. len_trim(pname) == n, 'MPI_Get_processor_name')
  call MPI_Get_library_version(version, n)
  call check(n > 0 .and. index(version, 'ftmpi') + index(version, 'MPI') > 0, 'MPI_Get_library_version')
  call MPI_Info_create(info)
  call MPI_Info_set(info, 'color   ', 'deep blue   ')
  call MPI_Info_get(info, 'color', 64, val, flag)
  call check(flag .and. val == 'deep blue', 'MPI_Info_set/get (trailing blanks trimmed)')
  call MPI_Info_get_valuelen(info, 'color', vlen, flag)
  call check(flag .and. vlen == 9, 'MPI_Info_get_valuelen')
  call MPI_Info_get_nkeys(info, nkeys)
  call MPI_Info_get_nthkey(info, 0, key)
  call check(nkeys == 1 .and. key == 'color', 'MPI_Info_get_nthkey')
  call MPI_Info_get(info, 'shape', 64, val, flag)
  call check(.not. flag, 'absent info key')
  call MPI_Info_free(info)
  call check(info == MPI_INFO_NULL, 'MPI_Info_free')

  ! Waitany / Waitsome / Testall / Request_get_status: rank 0 receives one message from each other rank
  if (rank == 0) then
    do i = 1, nprocs - 1
      call MPI_Irecv(rbuf(i), 1, MPI_INTEGER, i, 31, MPI_COMM_WORLD, reqs(min(i, 4)))
      if (i >= 4) call MPI_Wait(reqs(4), MPI_STATUS_IGNORE)
    end do
    if (nprocs - 1 < 4) reqs(nprocs:4) = MPI_REQUEST_NULL
    call MPI_Waitany(4, reqs, idx, st)
    call check(idx >= 1 .and. idx <= min(nprocs - 1, 4), 'MPI_Waitany index is 1-based')
    call check(st%MPI_SOURCE == idx .or. nprocs > 4, 'MPI_Waitany status')
    call MPI_Waitsome(4, reqs, outcount, indices, sts)
    do i = 1, outcount
      call check(indices(i) >= 1 .and. indices(i) <= 4 .and. indices(i) /= idx, 'MPI_Waitsome indices 1-based')
    end do
    call MPI_Testall(4, reqs, flag, MPI_STATUSES_IGNORE)
    do while (.not. flag)
      call MPI_Testall(4, reqs, flag, MPI_STATUSES_IGNORE)
    end do
    do i = 1, min(nprocs - 1, 3)
      if (rbuf(i) /= i * 7) call check(.false., 'values received through Waitany/Waitsome')
    end do
  else
    ival = rank * 7
    call MPI_Isend(ival, 1, MPI_INTEGER, 0, 31, MPI_COMM_WORLD, req)
    call MPI_Request_get_status(req, flag, st)
    do while (.not. flag)
      call MPI_Request_get_status(req, flag, st)
    end do
    call MPI_Wait(req, MPI_STATUS_IGNORE)
  end if

  ! Comm_idup: the new communicator is valid after MPI_Wait
  call MPI_Comm_idup(MPI_COMM_WORLD, dup, req)
  call MPI_Wait(req, MPI_STATUS_IGNORE)
  call check(dup /= MPI_COMM_NULL, 'MPI_Comm_idup result after MPI_Wait')
  call MPI_Allreduce(1, total, 1, MPI_INTEGER, MPI_SUM, dup)
  call check(total == nprocs, 'allreduce on the idup communicator')
  call MPI_Comm_free(dup)

  ! a periodic ring as a Cartesian communicator (LOGICAL periods)
  dims(1) = nprocs
  periods(1) = .true.
  call MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, .false., cart)
  periods(1) = .false.
  call MPI_Cart_get(cart, 1, dims, periods, coords)
  call check(periods(1) .and. dims(1) == nprocs .and. coords(1) == rank, 'MPI_Cart_get (LOGICAL periods)')
  call MPI_Cart_shift(cart, 0, 1, src, dst)
  call check(src == mod(rank - 1 + nprocs, nprocs) .and. dst == mod(rank + 1, nprocs), 'MPI_Cart_shift')
  call MPI_Comm_free(cart)

  ! a struct type from Get_address: {integer, double precision}
  call MPI_Get_address(r_out, base)
  call MPI_Get_address(r_out%i, addr(1))
  call MPI_Get_address(r_out%d, addr(2))
  disp = addr - base
  types(1) = MPI_INTEGER
  types(2) = MPI_DOUBLE_PRECISION
  call MPI_Type_create_struct(2, (/ 1, 1 /), disp, types, stype)
  call MPI_Type_commit(stype)
  call MPI_Type_get_envelope(stype, nint, nadd, ndt, comb)
  call check(comb == MPI_COMBINER_STRUCT .and. nint == 3 .and. nadd == 2 .and. ndt == 2, 'MPI_Type_get_envelope')
  r_out%i = rank
  r_out%d = rank * 0.5d0
  call MPI_Sendrecv(r_out, 1, stype, mod(rank + 1, nprocs), 32, r_in, 1, stype, mod(rank - 1 + nprocs, nprocs), &
                    32, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
  call check(r_in%i == mod(rank - 1 + nprocs, nprocs) .and. r_in%d == r_in%i * 0.5d0, 'struct type')
  ! Pack / Unpack
  pos = 0
  call MPI_Pack(r_out, 1, stype, packbuf, 64, pos, MPI_COMM_WORLD)
  call check(pos == 12, 'MPI_Pack position')
  pos = 0
  r_in%i = -1
  call MPI_Unpack(packbuf, 64, pos, r_in, 1, stype, MPI_COMM_WORLD)
  call check(r_in%i == rank .and. pos == 12, 'MPI_Unpack')
  call MPI_Type_free(stype)

  ! Gatherv / Scatterv: rank r contributes r+1 values
  do i = 1, nprocs
    counts(i) = i
    displs(i) = (i - 1) * i / 2
  end do
  ibuf(1:rank + 1) = rank
  call MPI_Gatherv(ibuf, rank + 1, MPI_INTEGER, rbuf, counts, displs, MPI_INTEGER, 0, MPI_COMM_WORLD)
  if (rank == 0) call check(rbuf(displs(nprocs) + 1) == nprocs - 1 .and. rbuf(2) == 1, 'MPI_Gatherv')
  ibuf = -1
  call MPI_Scatterv(rbuf, counts, displs, MPI_INTEGER, ibuf, rank + 1, MPI_INTEGER, 0, MPI_COMM_WORLD)
  call check(all(ibuf(1:rank + 1) == rank) .and. ibuf(rank + 2) == -1, 'MPI_Scatterv')

  ! Alltoallw: one INTEGER to every rank
  do i = 1, nprocs
    ibuf(i) = rank * 100 + (i - 1)
    scnt(i) = 1
    sdis(i) = (i - 1) * 4
    rdis(i) = (i - 1) * 4
    types(i) = MPI_INTEGER
  end do
  call MPI_Alltoallw(ibuf, scnt, sdis, types, rbuf, scnt, rdis, types, MPI_COMM_WORLD)
  do i = 1, nprocs
    if (rbuf(i) /= (i - 1) * 100 + rank) call check(.false., 'MPI_Alltoallw')
  end do

  ! Reduce_scatter_block and Scan
  ibuf(1:nprocs) = 1
  call MPI_Reduce_scatter_block(ibuf, ival, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  call check(ival == nprocs, 'MPI_Reduce_scatter_block')
  call MPI_Scan(rank, ival, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  call check(ival == rank * (rank + 1) / 2, 'MPI_Scan')

  ! groups and Comm_create: ranks 0 and 1
  call MPI_Comm_group(MPI_COMM_WORLD, world_group)
  ranks = (/ 0, 1 /)
  call MPI_Group_incl(world_group, 2, ranks, pair_group)
  call MPI_Group_size(pair_group, gsize)
  call check(gsize == 2, 'MPI_Group_incl')
  call MPI_Comm_create(MPI_COMM_WORLD, pair_group, sub)
  if (rank < 2) then
    call check(sub /= MPI_COMM_NULL, 'MPI_Comm_create member')
    call MPI_Comm_free(sub)
  else
    call check(sub == MPI_COMM_NULL, 'MPI_Comm_create non-member')
  end if
  call MPI_Group_free(pair_group)
  call MPI_Group_free(world_group)

  ! attribute value and an mpi_f08 user op
  call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, tag_ub, flag2)
  call check(flag2 .and. tag_ub >= 32767, 'MPI_TAG_UB')
  call MPI_Op_create(prod_plus_one, .true., op)
  call MPI_Allreduce(1, ival, 1, MPI_INTEGER, op, MPI_COMM_WORLD)
  call check(ival == 2 * nprocs - 1, 'mpi_f08 user op')
  call MPI_Op_free(op)

  call MPI_Finalize(ierr)
  if (errors == 0) print '(a,i0)', 'PASS f08_more rank ', rank

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
