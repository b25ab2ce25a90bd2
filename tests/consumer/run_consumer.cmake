# Installs the build tree into WORK_DIR/prefix and builds the consumer project against it.
file(REMOVE_RECURSE ${WORK_DIR})
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
  set(last_output "${out}" PARENT_SCOPE)
endfunction()
run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${WORK_DIR}/prefix)
# The package must not demand what no installed header or archive needs: Eigen, Boost and Threads
# are unfindable for the consumer, so a find_dependency() of any of them fails this configure.
run(${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${WORK_DIR}/build -G ${GENERATOR}
    -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix -DCMAKE_BUILD_TYPE=Release
    -DCMAKE_DISABLE_FIND_PACKAGE_Eigen3=TRUE -DCMAKE_DISABLE_FIND_PACKAGE_Boost=TRUE
    -DCMAKE_DISABLE_FIND_PACKAGE_Threads=TRUE)
run(${CMAKE_COMMAND} --build ${WORK_DIR}/build)
run(${WORK_DIR}/build/consumer)
if(NOT last_output MATCHES "aloha goodput at 0.5 = 0.1839397" OR NOT last_output MATCHES "makespan 10\n")
  message(FATAL_ERROR "consumer printed: ${last_output}")
endif()
message(STATUS "consumer: ${last_output}")
