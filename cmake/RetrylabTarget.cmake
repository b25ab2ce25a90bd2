# Flags per target, never global.
function(retrylab_set_warnings target)
  target_compile_features(${target} PUBLIC cxx_std_20)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion)
endfunction()

# retrylab_add_library(<layer> <sources>...): the library of one layer, as every layer declares it:
# target retrylab_<layer>, alias and export name retrylab::<layer>, per-target warnings, the project
# root as include root (installed under include/retrylab), and membership of the exported package.
function(retrylab_add_library layer)
  set(target retrylab_${layer})
  add_library(${target} ${ARGN})
  add_library(retrylab::${layer} ALIAS ${target})
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${layer})
  retrylab_set_warnings(${target})
  target_include_directories(${target} PUBLIC
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}/retrylab>)
  install(TARGETS ${target} EXPORT retrylabTargets)
endfunction()

# A build that runs only some of the checks (the sanitize preset) names the test labels it leaves out
# in RETRYLAB_LABELS_LEFT_OUT (the same labels its ctest preset excludes). There, a test program whose
# tests all carry such a label is not configured (`if(NOT "slow" IN_LIST RETRYLAB_LABELS_LEFT_OUT)`
# around it), and a program that no test runs (a regenerator or a check run by hand) is not built by
# default: retrylab_hand_run_tool(<target>...). `cmake --build B --target <name>` still builds one.
function(retrylab_hand_run_tool)
  if(RETRYLAB_LABELS_LEFT_OUT)
    set_target_properties(${ARGN} PROPERTIES EXCLUDE_FROM_ALL TRUE)
  endif()
endfunction()
