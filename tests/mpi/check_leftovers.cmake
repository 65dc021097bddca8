# cmake -DBINDIR=<tests/mpi build dir> -P check_leftovers.cmake
# CTest fixture cleanup run after the MPI tests.  Fails when
#   - a test program of THIS build directory is still running (processes of other build trees are ignored), or
#   - /dev/shm holds an "ftmpi-*" segment older than 30 seconds (segments are unlinked as soon as every rank
#     mapped them, so a live job of someone else's suite only has very young ones).
execute_process(COMMAND sleep 1)
execute_process(COMMAND pgrep -f "${BINDIR}/mpitest_" OUTPUT_VARIABLE procs OUTPUT_STRIP_TRAILING_WHITESPACE)
string(REPLACE "\n" "," procs "${procs}")
string(TIMESTAMP now "%s" UTC)
file(GLOB shm_files /dev/shm/ftmpi-*)
set(old_segments "")
foreach(f ${shm_files})
  file(TIMESTAMP ${f} t "%s" UTC)
  if(t STREQUAL "")
    continue()  # unlinked since the glob: a job of the other tests running beside this check just ended
  endif()
  math(EXPR age "${now} - ${t}")
  if(age GREATER 30)
    string(APPEND old_segments "  ${f} (${age} s old)\n")
  endif()
endforeach()
set(bad "")
if(procs)
  execute_process(COMMAND ps -o pid,etime,args -p ${procs} OUTPUT_VARIABLE listing)
  string(APPEND bad "test programs still running:\n${listing}\n")
endif()
if(old_segments)
  string(APPEND bad "ftmpi segments left in /dev/shm:\n${old_segments}")
endif()
if(bad)
  message(FATAL_ERROR "FAIL leftovers\n${bad}")
endif()
message(STATUS "no leftover processes or /dev/shm segments")
