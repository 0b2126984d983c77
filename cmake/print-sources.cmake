# cmake -DNAMES="NAME;..." -P cmake/print-sources.cmake
# Prints the files of the named lists of cmake/JitflushSources.cmake, one per
# line, for ci/gen/amalgamation.sh; fails on a list that is not defined.
include(${CMAKE_CURRENT_LIST_DIR}/JitflushSources.cmake)
set(_out "")
foreach(name IN LISTS NAMES)
  if(NOT DEFINED ${name})
    message(FATAL_ERROR "cmake/JitflushSources.cmake defines no ${name}")
  endif()
  foreach(file IN LISTS ${name})
    string(APPEND _out "${file}\n")
  endforeach()
endforeach()
execute_process(COMMAND ${CMAKE_COMMAND} -E echo_append "${_out}")
