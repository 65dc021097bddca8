! mpi_f08 forms MPICH's f08 directory needs: MPI_Alloc_mem / MPI_Win_allocate return TYPE(C_PTR) baseptr
! (f08/ext/allocmemf90), and the handler types MPI_File_errhandler_function ... declare a program's
! handler, which MPI_File_create_errhandler takes and MPI_File_call_errhandler calls (f08/io/fileerrf90).
! PMPI_Wtime and PMPI_Wtick exist (f08/timer/wtimef90). Any rank count. Prints PASS, or FAIL lines.
module f08_mpich_suite_procs
  use mpi_f08
  implicit none
  integer :: calls = 0, last = 0
contains
  subroutine my_file_handler(file, error_code)
    type(MPI_File) :: file
    integer :: error_code
    calls = calls + 1
    last = error_code
  end subroutine
end module

program f08_mpich_suite
  use mpi_f08
  use, intrinsic :: iso_c_binding
  use f08_mpich_suite_procs
  implicit none
  integer :: rank, errs, all, ierr
  integer(kind=MPI_ADDRESS_KIND) :: bytes
  type(c_ptr) :: p
  integer, pointer :: a(:)
  type(MPI_Win) :: win
  type(MPI_Errhandler) :: eh
  procedure(MPI_File_errhandler_function), pointer :: handler

  errs = 0
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  bytes = 40
  call MPI_Alloc_mem(bytes, MPI_INFO_NULL, p, ierr)
  if (ierr /= MPI_SUCCESS .or. .not. c_associated(p)) call fail('MPI_Alloc_mem with TYPE(C_PTR)', ierr)
  call c_f_pointer(p, a, (/ 10 /))
  a = 7
  if (sum(a) /= 70) call fail('memory of MPI_Alloc_mem', sum(a))
  call MPI_Free_mem(a)
  call MPI_Win_allocate(bytes, 4, MPI_INFO_NULL, MPI_COMM_WORLD, p, win, ierr)
  if (ierr /= MPI_SUCCESS .or. .not. c_associated(p)) call fail('MPI_Win_allocate with TYPE(C_PTR)', ierr)
  call MPI_Win_free(win)

  handler => my_file_handler
  call MPI_File_create_errhandler(handler, eh)
  call MPI_File_set_errhandler(MPI_FILE_NULL, eh)
  call MPI_File_call_errhandler(MPI_FILE_NULL, MPI_ERR_OTHER)
  if (calls /= 1 .or. last /= MPI_ERR_OTHER) call fail('PROCEDURE(MPI_File_errhandler_function) handler', calls)
  call MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN)
  call MPI_Errhandler_free(eh)

  if (PMPI_Wtime() <= 0.0d0 .or. PMPI_Wtick() <= 0.0d0) call fail('PMPI_Wtime / PMPI_Wtick', 0)

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
