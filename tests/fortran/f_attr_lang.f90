! Attributes shared between Fortran and C (MPI-3.1 §17.2.7), with f_attr_lang_c.c: a value set from Fortran
! (MPI_COMM/TYPE/WIN_SET_ATTR with INTEGER(KIND=MPI_ADDRESS_KIND), MPI_ATTR_PUT with INTEGER) reads in C as a
! pointer to the value; a pointer set from C reads in Fortran as its address; the copy and delete procedures
! of Fortran keyvals get the Fortran value (also of a C-set pointer: its address); C's MPI_COMM_DUP_FN copies
! a Fortran value; the predefined MPI_TAG_UB, MPI_WIN_BASE/SIZE/DISP_UNIT agree between the languages.
! Any rank count.  Prints PASS, or FAIL lines.
module f_attr_lang_procs
  use mpi
  use iso_c_binding
  implicit none
  integer(kind=MPI_ADDRESS_KIND) :: copied_in = -1, deleted_val = -1
  interface
    integer(c_int) function c_comm_aint_is(comm, keyval, want) bind(c)
      import :: c_int, MPI_ADDRESS_KIND
      integer(c_int), value :: comm, keyval
      integer(kind=MPI_ADDRESS_KIND), value :: want
    end function
    integer(c_int) function c_comm_int_is(comm, keyval, want) bind(c)
      import :: c_int
      integer(c_int), value :: comm, keyval, want
    end function
    integer(c_int) function c_type_aint_is(type, keyval, want) bind(c)
      import :: c_int, MPI_ADDRESS_KIND
      integer(c_int), value :: type, keyval
      integer(kind=MPI_ADDRESS_KIND), value :: want
    end function
    integer(c_int) function c_win_aint_is(win, keyval, want) bind(c)
      import :: c_int, MPI_ADDRESS_KIND
      integer(c_int), value :: win, keyval
      integer(kind=MPI_ADDRESS_KIND), value :: want
    end function
    integer(kind=MPI_ADDRESS_KIND) function c_set_pointer(kind, obj, keyval) bind(c)
      import :: c_int, MPI_ADDRESS_KIND
      integer(c_int), value :: kind, obj, keyval
    end function
    integer(c_int) function c_dup_keyval() bind(c)
      import :: c_int
    end function
    subroutine c_free_keyval(keyval) bind(c)
      import :: c_int
      integer(c_int), value :: keyval
    end subroutine
    integer(kind=MPI_ADDRESS_KIND) function c_tag_ub() bind(c)
      import :: MPI_ADDRESS_KIND
    end function
    integer(kind=MPI_ADDRESS_KIND) function c_win_predef(win, which) bind(c)
      import :: c_int, MPI_ADDRESS_KIND
      integer(c_int), value :: win, which
    end function
  end interface
contains
  subroutine my_copy(oldcomm, keyval, extra_state, val_in, val_out, flag, ierror)
    integer :: oldcomm, keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: extra_state, val_in, val_out
    logical :: flag
    copied_in = val_in
    val_out = val_in + 1
    flag = .true.
    ierror = MPI_SUCCESS
  end subroutine
  subroutine my_delete(comm, keyval, val, extra_state, ierror)
    integer :: comm, keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: val, extra_state
    deleted_val = val
    ierror = MPI_SUCCESS
  end subroutine
end module

program f_attr_lang
  use f_attr_lang_procs
  implicit none
  integer :: ierr, errs, key, key1, ckey, tkey, wkey, dup, dup2, ttype, win, ival
  integer(kind=MPI_ADDRESS_KIND) :: val, got, big, addr, extra, wsize
  logical :: flag
  integer :: buf(16)

  errs = 0
  call MPI_Init(ierr)
  extra = 0
  big = 1234567
  if (MPI_ADDRESS_KIND >= 8) big = big * 1000000 + 89   ! wider than an INTEGER

  ! communicator: Fortran value -> C, C pointer -> Fortran, the copy/delete procedures see Fortran values
  call MPI_Comm_create_keyval(my_copy, my_delete, key, extra, ierr)
  call MPI_Comm_set_attr(MPI_COMM_WORLD, key, big, ierr)
  if (c_comm_aint_is(MPI_COMM_WORLD, key, big) /= 1) errs = errs + 1
  call MPI_Comm_get_attr(MPI_COMM_WORLD, key, got, flag, ierr)
  if (.not. flag .or. got /= big) then
    print *, 'FAIL Fortran get of a Fortran value', got; errs = errs + 1
  end if
  call MPI_Comm_dup(MPI_COMM_WORLD, dup, ierr)
  if (copied_in /= big) then
    print *, 'FAIL copy procedure got', copied_in; errs = errs + 1
  end if
  if (c_comm_aint_is(dup, key, big + 1) /= 1) errs = errs + 1
  addr = c_set_pointer(0, dup, key)           ! replaces big+1: the delete procedure sees it
  if (deleted_val /= big + 1) then
    print *, 'FAIL delete procedure got', deleted_val; errs = errs + 1
  end if
  call MPI_Comm_get_attr(dup, key, got, flag, ierr)
  if (.not. flag .or. got /= addr) then
    print *, 'FAIL Fortran get of a C pointer', got, addr; errs = errs + 1
  end if
  call MPI_Comm_dup(dup, dup2, ierr)          ! the Fortran copy procedure gets the C pointer's address
  if (copied_in /= addr) then
    print *, 'FAIL copy procedure on a C pointer got', copied_in; errs = errs + 1
  end if
  call MPI_Comm_free(dup2, ierr)
  if (deleted_val /= addr + 1) then
    print *, 'FAIL delete procedure on free got', deleted_val; errs = errs + 1
  end if
  call MPI_Comm_free(dup, ierr)
  call MPI_Comm_delete_attr(MPI_COMM_WORLD, key, ierr)
  call MPI_Comm_free_keyval(key, ierr)

  ! MPI-1: INTEGER values (C reads an int), also negative ones
  call MPI_Keyval_create(MPI_NULL_COPY_FN, MPI_NULL_DELETE_FN, key1, 0, ierr)
  call MPI_Attr_put(MPI_COMM_WORLD, key1, -7, ierr)
  if (c_comm_int_is(MPI_COMM_WORLD, key1, -7) /= 1) errs = errs + 1
  call MPI_Attr_get(MPI_COMM_WORLD, key1, ival, flag, ierr)
  if (.not. flag .or. ival /= -7) then
    print *, 'FAIL MPI_Attr_get', ival; errs = errs + 1
  end if
  call MPI_Comm_get_attr(MPI_COMM_WORLD, key1, got, flag, ierr)
  if (.not. flag .or. got /= -7) then
    print *, 'FAIL MPI_Comm_get_attr of an MPI_Attr_put value', got; errs = errs + 1
  end if
  call MPI_Attr_delete(MPI_COMM_WORLD, key1, ierr)
  call MPI_Keyval_free(key1, ierr)

  ! a C keyval with C's MPI_COMM_DUP_FN: the duplicate keeps the value after the original is freed
  ckey = c_dup_keyval()
  call MPI_Comm_dup(MPI_COMM_WORLD, dup, ierr)
  val = 4242
  call MPI_Comm_set_attr(dup, ckey, val, ierr)
  call MPI_Comm_dup(dup, dup2, ierr)
  call MPI_Comm_free(dup, ierr)
  if (c_comm_aint_is(dup2, ckey, val) /= 1) errs = errs + 1
  call MPI_Comm_get_attr(dup2, ckey, got, flag, ierr)
  if (.not. flag .or. got /= val) then
    print *, 'FAIL C MPI_COMM_DUP_FN copy read in Fortran', got; errs = errs + 1
  end if
  call MPI_Comm_free(dup2, ierr)
  call c_free_keyval(ckey)

  ! datatype
  call MPI_Type_contiguous(2, MPI_INTEGER, ttype, ierr)
  call MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, tkey, extra, ierr)
  call MPI_Type_set_attr(ttype, tkey, big, ierr)
  if (c_type_aint_is(ttype, tkey, big) /= 1) errs = errs + 1
  addr = c_set_pointer(1, ttype, tkey)
  call MPI_Type_get_attr(ttype, tkey, got, flag, ierr)
  if (.not. flag .or. got /= addr) then
    print *, 'FAIL type: Fortran get of a C pointer', got, addr; errs = errs + 1
  end if
  call MPI_Type_free(ttype, ierr)
  call MPI_Type_free_keyval(tkey, ierr)

  ! window: user attributes, and the predefined ones in both languages
  call MPI_Win_create(buf, int(64, MPI_ADDRESS_KIND), 4, MPI_INFO_NULL, MPI_COMM_WORLD, win, ierr)
  call MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, MPI_WIN_NULL_DELETE_FN, wkey, extra, ierr)
  call MPI_Win_set_attr(win, wkey, big, ierr)
  if (c_win_aint_is(win, wkey, big) /= 1) errs = errs + 1
  addr = c_set_pointer(2, win, wkey)
  call MPI_Win_get_attr(win, wkey, got, flag, ierr)
  if (.not. flag .or. got /= addr) then
    print *, 'FAIL win: Fortran get of a C pointer', got, addr; errs = errs + 1
  end if
  call MPI_Win_get_attr(win, MPI_WIN_BASE, got, flag, ierr)
  if (.not. flag .or. got /= c_win_predef(win, 0)) then
    print *, 'FAIL MPI_WIN_BASE', got; errs = errs + 1
  end if
  call MPI_Win_get_attr(win, MPI_WIN_SIZE, wsize, flag, ierr)
  if (.not. flag .or. wsize /= 64 .or. c_win_predef(win, 1) /= 64) then
    print *, 'FAIL MPI_WIN_SIZE', wsize; errs = errs + 1
  end if
  call MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, got, flag, ierr)
  if (.not. flag .or. got /= 4 .or. c_win_predef(win, 2) /= 4) then
    print *, 'FAIL MPI_WIN_DISP_UNIT', got; errs = errs + 1
  end if
  call MPI_Win_delete_attr(win, wkey, ierr)
  call MPI_Win_free_keyval(wkey, ierr)
  call MPI_Win_free(win, ierr)

  ! predefined communicator attribute
  call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, got, flag, ierr)
  if (.not. flag .or. got < 32767 .or. got /= c_tag_ub()) then
    print *, 'FAIL MPI_TAG_UB', got; errs = errs + 1
  end if
  call MPI_Attr_get(MPI_COMM_WORLD, MPI_TAG_UB, ival, flag, ierr)
  if (.not. flag .or. ival /= got) then
    print *, 'FAIL MPI_TAG_UB through MPI_Attr_get', ival; errs = errs + 1
  end if

  if (errs == 0) print *, 'PASS'
  call MPI_Finalize(ierr)
end program
