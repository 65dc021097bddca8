! MPI_Comm_spawn and MPI_Comm_spawn_multiple from Fortran (mpi_f08): the program spawns copies of itself with
! CHARACTER argv arrays (blank-terminated, trailing blanks dropped), with MPI_ARGV_NULL, and two commands with
! array_of_argv(count, *) and MPI_ERRCODES_IGNORE.  Each child checks the arguments it got and MPI_APPNUM and
! reports to the parents through the intercommunicator.  Any rank count >= 1.  Prints PASS, or FAIL lines.
program f08_spawn
  use mpi_f08
  implicit none
  type(MPI_Comm) :: parent, inter
  type(MPI_Info) :: infos(2)
  integer :: rank, nprocs, errors, ierr, nargs, i, got(4), errcodes(2), maxprocs(2)
  integer(kind=MPI_ADDRESS_KIND) :: appnum
  logical :: flag
  character(len=512) :: prog
  character(len=32) :: arg1, arg2
  character(len=16) :: argv(3)
  character(len=512) :: commands(2)
  character(len=8) :: argvs(2, 3)

  errors = 0
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  call MPI_Comm_get_parent(parent, ierr)
  nargs = command_argument_count()

  if (parent /= MPI_COMM_NULL) then
    ! a child: report (number of arguments, a code for what they say, MPI_APPNUM) to parent rank 0
    arg1 = ''
    arg2 = ''
    if (nargs >= 1) call get_command_argument(1, arg1)
    if (nargs >= 2) call get_command_argument(2, arg2)
    call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, appnum, flag, ierr)
    got(1) = nargs
    got(2) = 0
    if (nargs == 2 .and. arg1 == 'child' .and. arg2 == 'two words') got(2) = 1
    if (nargs == 2 .and. arg1 == 'multi' .and. arg2 == 'a') got(2) = 2
    if (nargs == 2 .and. arg1 == 'multi' .and. arg2 == 'b') got(2) = 3
    got(3) = -1
    if (flag) got(3) = int(appnum)
    got(4) = rank
    call MPI_Send(got, 4, MPI_INTEGER, 0, 1, parent, ierr)
    call MPI_Comm_disconnect(parent, ierr)
    call MPI_Finalize(ierr)
    stop
  end if

  call get_command_argument(0, prog)

  ! 1. two children with two arguments; the third element is blank and ends the list
  argv(1) = 'child'
  argv(2) = 'two words'
  argv(3) = ' '
  call MPI_Comm_spawn(prog, argv, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, inter, errcodes, ierr)
  call check(ierr == MPI_SUCCESS, 'Comm_spawn')
  call check(all(errcodes == MPI_SUCCESS), 'Comm_spawn errcodes')
  if (rank == 0) then
    do i = 1, 2
      call MPI_Recv(got, 4, MPI_INTEGER, MPI_ANY_SOURCE, 1, inter, MPI_STATUS_IGNORE, ierr)
      call check(got(1) == 2 .and. got(2) == 1, 'child got argv (child, two words)')
      call check(got(3) == 0, 'child MPI_APPNUM 0')
    end do
  end if
  call MPI_Comm_disconnect(inter, ierr)

  ! 2. MPI_ARGV_NULL: no arguments
  call MPI_Comm_spawn(prog, MPI_ARGV_NULL, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD, inter, MPI_ERRCODES_IGNORE, ierr)
  call check(ierr == MPI_SUCCESS, 'Comm_spawn with MPI_ARGV_NULL')
  if (rank == 0) then
    call MPI_Recv(got, 4, MPI_INTEGER, 0, 1, inter, MPI_STATUS_IGNORE, ierr)
    call check(got(1) == 0, 'MPI_ARGV_NULL gives no arguments')
  end if
  call MPI_Comm_disconnect(inter, ierr)

  ! 3. spawn_multiple: command i's arguments are argvs(i, :)
  commands = prog
  argvs(1, :) = (/ 'multi', 'a    ', '     ' /)
  argvs(2, :) = (/ 'multi', 'b    ', '     ' /)
  maxprocs = 1
  infos = MPI_INFO_NULL
  call MPI_Comm_spawn_multiple(2, commands, argvs, maxprocs, infos, 0, MPI_COMM_WORLD, inter, &
                               MPI_ERRCODES_IGNORE, ierr)
  call check(ierr == MPI_SUCCESS, 'Comm_spawn_multiple')
  if (rank == 0) then
    do i = 1, 2
      call MPI_Recv(got, 4, MPI_INTEGER, MPI_ANY_SOURCE, 1, inter, MPI_STATUS_IGNORE, ierr)
      call check(got(1) == 2, 'spawn_multiple child argument count')
      call check(got(2) == 2 + got(3), 'spawn_multiple: command i got argvs(i, :) and MPI_APPNUM i-1')
    end do
  end if
  call MPI_Comm_disconnect(inter, ierr)

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
