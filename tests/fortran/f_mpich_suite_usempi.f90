! What MPICH's f77/f90 test directories found wrong in the Fortran bindings, through `use mpi` (mpif.h shares
! the shims): MPI_Sizeof (MPI-3.1 §17.1.9) for scalars and arrays; the MPI-1 MPI_Type_hindexed / MPI_Type_extent
! with default-INTEGER addresses (they were read as 8-byte integers: a crash); MPI_Win_get_attr of
! MPI_WIN_SIZE / MPI_WIN_DISP_UNIT as values; info keys and values lose leading blanks, MPI_Info_get leaves
! the value alone when the key is absent, MPI_Info_get_string's buflen is the value's length; a generalized
! request's free procedure sees (and changes) the caller's extra_state; MPI_C_COMPLEX's name; the
! MPI_COMBINER_*_INTEGER constants exist. Any rank count. Prints PASS, or FAIL lines.
module f_mpich_suite_procs
  use mpi
  implicit none
contains
  subroutine q_fn(extra, status, ierror)
    integer(kind=MPI_ADDRESS_KIND) :: extra
    integer :: status(MPI_STATUS_SIZE), ierror
    call MPI_Status_set_elements(status, MPI_BYTE, 0, ierror)
    call MPI_Status_set_cancelled(status, .false., ierror)
    ierror = MPI_SUCCESS
  end subroutine
  subroutine f_fn(extra, ierror)
    integer(kind=MPI_ADDRESS_KIND) :: extra
    integer :: ierror
    extra = extra - 1
    ierror = MPI_SUCCESS
  end subroutine
  subroutine c_fn(extra, complete, ierror)
    integer(kind=MPI_ADDRESS_KIND) :: extra
    logical :: complete
    integer :: ierror
    ierror = MPI_SUCCESS
  end subroutine
end module

program f_mpich_suite
  use mpi
  use f_mpich_suite_procs
  implicit none
  integer :: ierr, rank, errs, sz, i, dtype, intsize, extent, info, buflen, win, req, all
  integer :: displs(4), counts(4), inbuf(4), outbuf(4), packbuf(16), pos, combiners(3)
  real(kind=8) :: d(3)
  complex :: c
  logical :: flag
  character(len=MPI_MAX_INFO_VAL) :: val
  character(len=MPI_MAX_OBJECT_NAME) :: tname
  integer(kind=MPI_ADDRESS_KIND) :: aval, extra, winsize
  integer :: winbuf(256)

  errs = 0
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)

  call MPI_Sizeof(d, sz, ierr)
  if (sz /= 8 .or. ierr /= MPI_SUCCESS) call fail('MPI_Sizeof of a real(8) array', sz)
  call MPI_Sizeof(c, sz, ierr)
  if (sz /= 8) call fail('MPI_Sizeof of a complex', sz)
  call MPI_Sizeof(rank, sz, ierr)
  if (sz /= 4) call fail('MPI_Sizeof of an integer', sz)

  call MPI_Type_size(MPI_INTEGER, intsize, ierr)
  do i = 1, 4
    displs(i) = (4 - i) * intsize
    counts(i) = 1
    inbuf(i) = i
  end do
  call MPI_Type_hindexed(4, counts, displs, MPI_INTEGER, dtype, ierr)
  call MPI_Type_commit(dtype, ierr)
  call MPI_Type_extent(dtype, extent, ierr)
  if (extent /= 4 * intsize) call fail('MPI_Type_extent of the hindexed type', extent)
  pos = 0
  call MPI_Pack(inbuf, 1, dtype, packbuf, 16 * intsize, pos, MPI_COMM_WORLD, ierr)
  pos = 0
  call MPI_Unpack(packbuf, 4 * intsize, pos, outbuf, 4, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  if (any(outbuf /= (/ 4, 3, 2, 1 /))) call fail('MPI_Type_hindexed with INTEGER displacements', outbuf(1))
  call MPI_Type_free(dtype, ierr)

  winsize = 1024
  call MPI_Win_create(winbuf, winsize, 4, MPI_INFO_NULL, MPI_COMM_WORLD, win, ierr)
  call MPI_Win_get_attr(win, MPI_WIN_SIZE, aval, flag, ierr)
  if (.not. flag .or. aval /= 1024) call fail('MPI_WIN_SIZE', int(aval))
  call MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, aval, flag, ierr)
  if (.not. flag .or. aval /= 4) call fail('MPI_WIN_DISP_UNIT', int(aval))
  call MPI_Win_free(win, ierr)

  call MPI_Info_create(info, ierr)
  call MPI_Info_set(info, '  spaced key ', '  spaced value ', ierr)
  call MPI_Info_get(info, 'spaced key', MPI_MAX_INFO_VAL, val, flag, ierr)
  if (.not. flag .or. val /= 'spaced value') call fail('info key/value with leading blanks', 0)
  val = 'canary'
  call MPI_Info_get(info, 'absent', MPI_MAX_INFO_VAL, val, flag, ierr)
  if (flag .or. val /= 'canary') call fail('MPI_Info_get wrote the value of an absent key', 0)
  buflen = 0
  call MPI_Info_get_string(info, 'spaced key', buflen, val, flag, ierr)
  if (.not. flag .or. buflen /= 12 .or. val /= 'canary') call fail('MPI_Info_get_string with buflen 0', buflen)
  buflen = 3
  call MPI_Info_get_string(info, 'spaced key', buflen, val, flag, ierr)
  if (buflen /= 12 .or. val /= 'spa') call fail('MPI_Info_get_string with buflen 3', buflen)
  call MPI_Info_free(info, ierr)

  extra = 1
  call MPI_Grequest_start(q_fn, f_fn, c_fn, extra, req, ierr)
  call MPI_Grequest_complete(req, ierr)
  call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
  if (extra /= 0) call fail('the free procedure did not change extra_state', int(extra))

  call MPI_Type_get_name(MPI_C_COMPLEX, tname, i, ierr)
  if (tname /= 'MPI_C_COMPLEX') call fail('name of MPI_C_COMPLEX', i)
  combiners = (/ MPI_COMBINER_HVECTOR_INTEGER, MPI_COMBINER_HINDEXED_INTEGER, MPI_COMBINER_STRUCT_INTEGER /)
  if (any(combiners == MPI_COMBINER_HVECTOR) .or. any(combiners == MPI_COMBINER_NAMED)) &
    call fail('MPI_COMBINER_*_INTEGER values', combiners(1))

  call MPI_Allreduce(errs, all, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    if (all == 0) then
      print '(a)', 'PASS'
    else
      print '(a,i0,a)', 'FAIL: ', all, ' problems'
    end if
  end if
  call MPI_Finalize(ierr)
  if (all /= 0) stop 1
contains
  subroutine fail(what, v)
    character(len=*) :: what
    integer :: v
    print '(a,a,a,i0)', 'FAIL: ', what, ': ', v
    errs = errs + 1
  end subroutine
end program
