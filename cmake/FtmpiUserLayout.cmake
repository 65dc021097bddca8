# The user-facing layout of ftmpi: compiler wrappers (mpicc, mpicxx) and lib/pkgconfig/mpi.pc, generated twice:
#
#   build tree  <build>/bin/mpicc, <build>/lib/pkgconfig/mpi.pc: absolute paths to the source include/ dir and
#               <build>/lib, so a build tree is usable exactly like an installed prefix (not relocatable).
#   install     <prefix>/bin/mpicc, <prefix>/lib/pkgconfig/mpi.pc: every path is derived at use time from the
#               file's own location (the script's path, pkg-config's ${pcfiledir}), so a prefix can be moved.
#
# Included once from tools/wrappers/CMakeLists.txt.  Expects GNUInstallDirs to be loaded and the `mpi` library
# target to write into ${PROJECT_BINARY_DIR}/lib.

set(FTMPI_WRAPPER_TEMPLATE ${PROJECT_SOURCE_DIR}/tools/wrappers/mpiwrapper.sh.in)
set(FTMPI_BUILD_LIBDIR ${PROJECT_BINARY_DIR}/lib)
set(FTMPI_BUILD_INCDIR ${PROJECT_SOURCE_DIR}/include)

# Relative path from <prefix>/<from> back to <prefix>; "." if <from> is empty.  Absolute install dirs
# (e.g. CMAKE_INSTALL_LIBDIR=/opt/lib) make the installed files fall back to absolute paths.
function(_ftmpi_back_to_prefix from out)
  file(RELATIVE_PATH rel /ftmpi-prefix/${from} /ftmpi-prefix)
  string(REGEX REPLACE "/$" "" rel "${rel}")
  if(rel STREQUAL "")
    set(rel ".")
  endif()
  set(${out} ${rel} PARENT_SCOPE)
endfunction()

function(_ftmpi_install_dir_expr dir out)
  if(IS_ABSOLUTE "${dir}")
    set(${out} "${dir}" PARENT_SCOPE)
  else()
    set(${out} "$ftmpi_prefix/${dir}" PARENT_SCOPE)
  endif()
endfunction()

# ftmpi_add_wrapper(<name> <language> <default compiler> <FTMPI_* env> <compat env>
#                   [LIBS <library names, first to last>] [BUILD_INCDIR <extra include dir in the build tree>]
#                   [LANG_FLAGS <compiler flags always given>])
# LIBS defaults to "mpi"; the Fortran wrappers use "mpi_fortran mpi" and BUILD_INCDIR (mpif.h and the .mod
# files are generated into the build tree; installed, they sit next to mpi.h).
function(ftmpi_add_wrapper name language default_compiler ftmpi_env compat_env)
  cmake_parse_arguments(W "" "BUILD_INCDIR" "LIBS;LANG_FLAGS" ${ARGN})
  list(JOIN W_LANG_FLAGS " " WRAPPER_LANG_FLAGS)
  if(NOT W_LIBS)
    set(W_LIBS mpi)
  endif()
  list(JOIN W_LIBS " " WRAPPER_LIB_NAMES)
  list(TRANSFORM W_LIBS PREPEND "-l" OUTPUT_VARIABLE link_libs)
  list(JOIN link_libs " " WRAPPER_LINK_LIBS)
  set(WRAPPER_NAME ${name})
  set(WRAPPER_LANGUAGE ${language})
  set(WRAPPER_DEFAULT_COMPILER ${default_compiler})
  set(WRAPPER_FTMPI_ENV ${ftmpi_env})
  set(WRAPPER_COMPAT_ENV ${compat_env})
  set(FTMPI_VERSION ${PROJECT_VERSION})

  # Build tree: fixed absolute paths.
  set(WRAPPER_LOCATION_COMMENT "Build tree of ${PROJECT_BINARY_DIR}: fixed paths.")
  set(WRAPPER_EXTRA_INCDIR "${W_BUILD_INCDIR}")
  set(WRAPPER_LOCATE "ftmpi_incdir='${FTMPI_BUILD_INCDIR}'\nftmpi_libdir='${FTMPI_BUILD_LIBDIR}'")
  configure_file(${FTMPI_WRAPPER_TEMPLATE} ${PROJECT_BINARY_DIR}/bin/${name} @ONLY
    FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)

  # Installed prefix: found from the script's own (symlink-resolved) location.
  _ftmpi_back_to_prefix(${CMAKE_INSTALL_BINDIR} bin_to_prefix)
  _ftmpi_install_dir_expr(${CMAKE_INSTALL_INCLUDEDIR} incdir_expr)
  _ftmpi_install_dir_expr(${CMAKE_INSTALL_LIBDIR} libdir_expr)
  set(WRAPPER_LOCATION_COMMENT "Installed prefix: found from this script's own location, so the prefix can move.")
  set(WRAPPER_EXTRA_INCDIR "")
  string(CONCAT WRAPPER_LOCATE
    "ftmpi_self=$0\n"
    "if ftmpi_resolved=$(readlink -f -- \"$0\" 2>/dev/null) && [ -n \"$ftmpi_resolved\" ]; then\n"
    "  ftmpi_self=$ftmpi_resolved\n"
    "fi\n"
    "ftmpi_prefix=$(cd -- \"$(dirname -- \"$ftmpi_self\")/${bin_to_prefix}\" && pwd -P) || {\n"
    "  echo \"${name}: cannot find the ftmpi prefix from $0\" >&2\n"
    "  exit 2\n"
    "}\n"
    "ftmpi_incdir=\"${incdir_expr}\"\n"
    "ftmpi_libdir=\"${libdir_expr}\"")
  configure_file(${FTMPI_WRAPPER_TEMPLATE} ${CMAKE_CURRENT_BINARY_DIR}/install/${name} @ONLY
    FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
  install(PROGRAMS ${CMAKE_CURRENT_BINARY_DIR}/install/${name} DESTINATION ${CMAKE_INSTALL_BINDIR})
endfunction()

# ftmpi_add_pkgconfig(): lib/pkgconfig/mpi.pc in both trees.
function(ftmpi_add_pkgconfig)
  set(template ${PROJECT_SOURCE_DIR}/cmake/mpi.pc.in)

  set(PC_PREFIX_LINE "prefix=${PROJECT_BINARY_DIR}")
  set(PC_INCLUDEDIR ${FTMPI_BUILD_INCDIR})
  set(PC_LIBDIR ${FTMPI_BUILD_LIBDIR})
  configure_file(${template} ${PROJECT_BINARY_DIR}/lib/pkgconfig/mpi.pc @ONLY)

  _ftmpi_back_to_prefix(${CMAKE_INSTALL_LIBDIR}/pkgconfig pc_to_prefix)
  set(PC_PREFIX_LINE "prefix=\${pcfiledir}/${pc_to_prefix}")
  foreach(kind INCLUDEDIR LIBDIR)
    if(IS_ABSOLUTE "${CMAKE_INSTALL_${kind}}")
      set(PC_${kind} "${CMAKE_INSTALL_${kind}}")
    else()
      set(PC_${kind} "\${prefix}/${CMAKE_INSTALL_${kind}}")
    endif()
  endforeach()
  configure_file(${template} ${CMAKE_CURRENT_BINARY_DIR}/install/mpi.pc @ONLY)
  install(FILES ${CMAKE_CURRENT_BINARY_DIR}/install/mpi.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endfunction()
