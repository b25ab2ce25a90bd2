# ctest driver for the planted-fault gate tests: runs `FAULTY validate --quick` with RETRYLAB_FAULT=FAULT
# and requires exit status exactly 1 (not 0, not 2 or a crash), every case in CAUGHT (names joined by
# '|') among the failing ones, and, with EXACT=1, no other case failing. Prints the failing cases.
cmake_minimum_required(VERSION 3.25)  # IN_LIST
set(ENV{RETRYLAB_FAULT} ${FAULT})
set(ENV{RETRYLAB_CERTIFICATE_DIR} ${CERTS})
execute_process(COMMAND ${FAULTY} validate --quick --threads 2 --quiet --format csv
  OUTPUT_FILE ${CSV} RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 1)
  message(FATAL_ERROR "validate --quick with RETRYLAB_FAULT=${FAULT} exited ${rc}, expected 1\n${err}")
endif()
file(STRINGS ${CSV} lines ENCODING UTF-8)
# A CMake list keeps an element whole from an unmatched '[' to its ']' (the cases' texts have
# half-open intervals, "[0, T)"), which would glue the rows that follow into one: brackets out.
string(REPLACE "[" "(" lines "${lines}")
string(REPLACE "]" ")" lines "${lines}")
set(failing "")
foreach(line IN LISTS lines)
  # The last four columns are verdict, alpha, n, seconds (none holds a comma).
  if(line MATCHES "^([^,]+),.*,fail,[^,]*,[^,]*,[^,]*$")
    list(APPEND failing ${CMAKE_MATCH_1})
  endif()
endforeach()
string(REPLACE "|" ";" caught "${CAUGHT}")
foreach(c IN LISTS caught)
  if(NOT c IN_LIST failing)
    message(FATAL_ERROR "${FAULT}: case ${c} did not fail (failing: ${failing})")
  endif()
endforeach()
if(EXACT)
  foreach(c IN LISTS failing)
    if(NOT c IN_LIST caught)
      message(FATAL_ERROR "${FAULT}: case ${c} failed too; only ${caught} should (failing: ${failing})")
    endif()
  endforeach()
endif()
message(STATUS "${FAULT} caught by: ${failing}")
