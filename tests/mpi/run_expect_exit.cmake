# cmake -DCMD=<command|arg|arg...> -DEXPECT=<code> -P run_expect_exit.cmake   ("|" separates the words)
# Runs CMD and succeeds only when it exits with exactly EXPECT (used for launcher-level tests such as
# MPI_Abort(comm, 7) -> mpiexec exits 7).  The command's output is passed through for the CTest log.
string(REPLACE "|" ";" cmd "${CMD}")
execute_process(COMMAND ${cmd} RESULT_VARIABLE rc)
if(NOT "${rc}" STREQUAL "${EXPECT}")
  message(FATAL_ERROR "expected exit status ${EXPECT}, got '${rc}'")
endif()
message(STATUS "exit status ${rc} as expected")
