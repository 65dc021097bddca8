! Fortran procedures as MPI callbacks through `use mpi`: attribute keyvals of communicators, datatypes and
! windows (user copy/delete procedures with an extra_state, and the predefined MPI_COMM_DUP_FN /
! MPI_COMM_NULL_COPY_FN / MPI_*_NULL_DELETE_FN procedures), the MPI-1 MPI_Keyval_create with INTEGER values and
! MPI_DUP_FN, error handlers of windows and files (MPI_Win/File_create_errhandler, called through
! MPI_Win/File_call_errhandler), a generalized request (query, free, cancel procedures) and
! MPI_Buffer_detach after MPI_Bsend, and MPI_Info_create_env.  Any rank count >= 2.  Prints PASS, or FAIL lines.
module f_callbacks_procs
  use mpi
  implicit none
  integer :: copies = 0, deletes = 0, win_errors = 0, file_errors = 0, last_code = 0
  integer :: queries = 0, frees = 0, cancels = 0
  integer(kind=MPI_ADDRESS_KIND) :: seen_extra = 0
contains
  subroutine my_copy(oldcomm, keyval, extra_state, val_in, val_out, flag, ierror)
    integer :: oldcomm, keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: extra_state, val_in, val_out
    logical :: flag
    copies = copies + 1
    seen_extra = extra_state
    val_out = val_in + 1
    flag = .true.
    ierror = MPI_SUCCESS
  end subroutine
  subroutine my_delete(comm, keyval, val, extra_state, ierror)
    integer :: comm, keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: val, extra_state
    deletes = deletes + 1
    ierror = MPI_SUCCESS
  end subroutine
  subroutine my_copy1(oldcomm, keyval, extra_state, val_in, val_out, flag, ierror)
    integer :: oldcomm, keyval, extra_state, val_in, val_out, ierror
    logical :: flag
    copies = copies + 1
    val_out = val_in * 10 + extra_state
    flag = .true.
    ierror = MPI_SUCCESS
  end subroutine
  subroutine my_delete1(comm, keyval, val, extra_state, ierror)
    integer :: comm, keyval, val, extra_state, ierror
    deletes = deletes + 1
    ierror = MPI_SUCCESS
  end subroutine
  subroutine on_win_error(win, code)
    integer :: win, code
    win_errors = win_errors + 1
    last_code = code
  end subroutine
  subroutine on_file_error(fh, code)
    integer :: fh, code
    file_errors = file_errors + 1
    last_code = code
  end subroutine
  subroutine g_query(extra_state, status, ierror)
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    integer :: status(MPI_STATUS_SIZE), ierror
    queries = queries + 1
    call MPI_Status_set_elements(status, MPI_INTEGER, int(extra_state), ierror)
    call MPI_Status_set_cancelled(status, .false., ierror)
    status(MPI_SOURCE) = MPI_UNDEFINED
    status(MPI_TAG) = MPI_UNDEFINED
    ierror = MPI_SUCCESS
  end subroutine
  subroutine g_free(extra_state, ierror)
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    integer :: ierror
    frees = frees + 1
    ierror = MPI_SUCCESS
  end subroutine
  subroutine g_cancel(extra_state, complete, ierror)
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    logical :: complete
    integer :: ierror
    cancels = cancels + 1
    ierror = MPI_SUCCESS
  end subroutine
end module

program f_callbacks_usempi
  use mpi
  use f_callbacks_procs
  implicit none
  integer :: ierr, rank, nprocs, errors, key, key2, tkey, wkey, key1, dup, ttype, win, eh, feh, fh, req
  integer :: cnt, bsize, i, ival, status(MPI_STATUS_SIZE), info
  integer(kind=MPI_ADDRESS_KIND) :: val, extra, wsize
  logical :: flag
  integer :: wbuf(4)
  character(len=1), allocatable :: bbuf(:)
  character(len=256) :: fname

  errors = 0
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)

  ! 1. a communicator keyval with Fortran copy/delete and an extra_state
  extra = 4242
  call MPI_Comm_create_keyval(my_copy, my_delete, key, extra, ierr)
  call check(ierr == MPI_SUCCESS, 'Comm_create_keyval')
  val = 100 + rank
  call MPI_Comm_set_attr(MPI_COMM_WORLD, key, val, ierr)
  call MPI_Comm_dup(MPI_COMM_WORLD, dup, ierr)
  call check(copies == 1, 'copy procedure called once by Comm_dup')
  call check(seen_extra == 4242, 'extra_state reaches the copy procedure')
  call MPI_Comm_get_attr(dup, key, val, flag, ierr)
  call check(flag .and. val == 101 + rank, 'copied attribute value')
  call MPI_Comm_free(dup, ierr)
  call check(deletes == 1, 'delete procedure called by Comm_free')
  call MPI_Comm_delete_attr(MPI_COMM_WORLD, key, ierr)
  call check(deletes == 2, 'delete procedure called by Comm_delete_attr')
  call MPI_Comm_free_keyval(key, ierr)

  ! 2. the predefined procedures: DUP_FN copies, NULL_COPY_FN does not
  call MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, key, extra, ierr)
  call MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, key2, extra, ierr)
  val = 7
  call MPI_Comm_set_attr(MPI_COMM_WORLD, key, val, ierr)
  call MPI_Comm_set_attr(MPI_COMM_WORLD, key2, val, ierr)
  call MPI_Comm_dup(MPI_COMM_WORLD, dup, ierr)
  val = 0
  call MPI_Comm_get_attr(dup, key, val, flag, ierr)
  call check(flag .and. val == 7, 'MPI_COMM_DUP_FN copies the value')
  call MPI_Comm_get_attr(dup, key2, val, flag, ierr)
  call check(.not. flag, 'MPI_COMM_NULL_COPY_FN does not copy')
  call MPI_Comm_free(dup, ierr)
  call MPI_Comm_delete_attr(MPI_COMM_WORLD, key, ierr)
  call MPI_Comm_delete_attr(MPI_COMM_WORLD, key2, ierr)
  call MPI_Comm_free_keyval(key, ierr)
  call MPI_Comm_free_keyval(key2, ierr)

  ! 3. MPI-1: Keyval_create with INTEGER values (Attr_put / Attr_get), user and MPI_DUP_FN
  copies = 0
  deletes = 0
  call MPI_Keyval_create(my_copy1, my_delete1, key1, 3, ierr)
  call check(ierr == MPI_SUCCESS, 'Keyval_create')
  call MPI_Attr_put(MPI_COMM_WORLD, key1, 5, ierr)
  call MPI_Keyval_create(MPI_DUP_FN, MPI_NULL_DELETE_FN, key2, 0, ierr)
  call MPI_Attr_put(MPI_COMM_WORLD, key2, 9, ierr)
  call MPI_Comm_dup(MPI_COMM_WORLD, dup, ierr)
  call MPI_Attr_get(dup, key1, ival, flag, ierr)
  call check(flag .and. ival == 53, 'MPI-1 copy procedure (INTEGER values, extra_state)')
  call MPI_Attr_get(dup, key2, ival, flag, ierr)
  call check(flag .and. ival == 9, 'MPI_DUP_FN')
  call MPI_Comm_free(dup, ierr)
  call check(deletes == 1, 'MPI-1 delete procedure')
  call MPI_Attr_delete(MPI_COMM_WORLD, key1, ierr)
  call MPI_Attr_delete(MPI_COMM_WORLD, key2, ierr)
  call MPI_Keyval_free(key1, ierr)
  call MPI_Keyval_free(key2, ierr)

  ! 4. a datatype keyval (copied by Type_dup)
  copies = 0
  call MPI_Type_create_keyval(MPI_TYPE_DUP_FN, MPI_TYPE_NULL_DELETE_FN, tkey, extra, ierr)
  call check(ierr == MPI_SUCCESS, 'Type_create_keyval')
  val = 31
  call MPI_Type_set_attr(MPI_INTEGER, tkey, val, ierr)
  call MPI_Type_dup(MPI_INTEGER, ttype, ierr)
  val = 0
  call MPI_Type_get_attr(ttype, tkey, val, flag, ierr)
  call check(flag .and. val == 31, 'MPI_TYPE_DUP_FN through Type_dup')
  call MPI_Type_free(ttype, ierr)
  call MPI_Type_delete_attr(MPI_INTEGER, tkey, ierr)
  call MPI_Type_free_keyval(tkey, ierr)

  ! 5. a window keyval and a window error handler
  wsize = 4 * 4
  call MPI_Win_create(wbuf, wsize, 4, MPI_INFO_NULL, MPI_COMM_WORLD, win, ierr)
  call check(ierr == MPI_SUCCESS, 'Win_create')
  deletes = 0
  call MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, my_delete, wkey, extra, ierr)
  val = 12
  call MPI_Win_set_attr(win, wkey, val, ierr)
  call MPI_Win_get_attr(win, wkey, val, flag, ierr)
  call check(flag .and. val == 12, 'Win_get_attr of a user keyval')
  call MPI_Win_create_errhandler(on_win_error, eh, ierr)
  call check(ierr == MPI_SUCCESS, 'Win_create_errhandler')
  call MPI_Win_set_errhandler(win, eh, ierr)
  call MPI_Win_call_errhandler(win, MPI_ERR_OTHER, ierr)
  call check(win_errors == 1 .and. last_code == MPI_ERR_OTHER, 'Fortran window error handler called')
  call MPI_Errhandler_free(eh, ierr)
  call MPI_Win_free(win, ierr)
  call check(deletes == 1, 'window attribute deleted with the window')
  call MPI_Win_free_keyval(wkey, ierr)

  ! 6. a file error handler
  write (fname, '(A,I0,A)') '/tmp/ftmpi_f_callbacks_', rank, '.dat'
  call MPI_File_open(MPI_COMM_SELF, fname, MPI_MODE_CREATE + MPI_MODE_RDWR + MPI_MODE_DELETE_ON_CLOSE, &
                     MPI_INFO_NULL, fh, ierr)
  call check(ierr == MPI_SUCCESS, 'File_open')
  call MPI_File_create_errhandler(on_file_error, feh, ierr)
  call check(ierr == MPI_SUCCESS, 'File_create_errhandler')
  call MPI_File_set_errhandler(fh, feh, ierr)
  call MPI_File_call_errhandler(fh, MPI_ERR_IO, ierr)
  call check(file_errors == 1 .and. last_code == MPI_ERR_IO, 'Fortran file error handler called')
  call MPI_Errhandler_free(feh, ierr)
  call MPI_File_close(fh, ierr)

  ! 7. a generalized request: completed, waited (query fills the status), freed
  extra = 17
  call MPI_Grequest_start(g_query, g_free, g_cancel, extra, req, ierr)
  call check(ierr == MPI_SUCCESS, 'Grequest_start')
  call MPI_Test(req, flag, status, ierr)
  call check(.not. flag, 'generalized request not complete before Grequest_complete')
  call MPI_Grequest_complete(req, ierr)
  call MPI_Wait(req, status, ierr)
  call check(ierr == MPI_SUCCESS .and. req == MPI_REQUEST_NULL, 'Wait on a generalized request')
  call MPI_Get_count(status, MPI_INTEGER, cnt, ierr)
  call check(queries == 1 .and. cnt == 17, 'query procedure fills the status')
  call check(frees == 1, 'free procedure called once')
  call MPI_Grequest_start(g_query, g_free, g_cancel, extra, req, ierr)
  call MPI_Cancel(req, ierr)
  call check(cancels == 1, 'cancel procedure called')
  call MPI_Grequest_complete(req, ierr)
  call MPI_Wait(req, status, ierr)
  call check(frees == 2, 'free procedure of the cancelled request')

  ! 8. buffered sends and MPI_Buffer_detach
  call MPI_Pack_size(4, MPI_INTEGER, MPI_COMM_WORLD, bsize, ierr)
  bsize = bsize + MPI_BSEND_OVERHEAD
  allocate (bbuf(bsize))
  call MPI_Buffer_attach(bbuf, bsize, ierr)
  wbuf = (/ (rank * 10 + i, i = 1, 4) /)
  call MPI_Bsend(wbuf, 4, MPI_INTEGER, mod(rank + 1, nprocs), 3, MPI_COMM_WORLD, ierr)
  call check(ierr == MPI_SUCCESS, 'Bsend')
  call MPI_Recv(wbuf, 4, MPI_INTEGER, mod(rank - 1 + nprocs, nprocs), 3, MPI_COMM_WORLD, status, ierr)
  call check(wbuf(1) == mod(rank - 1 + nprocs, nprocs) * 10 + 1, 'Bsend data')
  cnt = 0
  call MPI_Buffer_detach(bbuf, cnt, ierr)
  call check(ierr == MPI_SUCCESS .and. cnt == bsize, 'Buffer_detach returns the size')
  deallocate (bbuf)

  ! 9. MPI-4 MPI_Info_create_env (no arguments in Fortran)
  call MPI_Info_create_env(info, ierr)
  call check(ierr == MPI_SUCCESS .and. info /= MPI_INFO_NULL, 'Info_create_env')
  call MPI_Info_free(info, ierr)

  call MPI_Allreduce(MPI_IN_PLACE, errors, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0 .and. errors == 0) print '(A)', 'PASS'
  call MPI_Finalize(ierr)
  if (errors /= 0) stop 1

contains
  subroutine check(cond, what)
    logical, intent(in) :: cond
    character(len=*), intent(in) :: what
    if (.not. cond) then
      print '(A,I0,2A)', 'FAIL rank ', rank, ': ', what
      errors = errors + 1
    end if
  end subroutine
end program
