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

# retrylab_unity(<target>...): with RETRYLAB_UNITY (default ON), the target's sources are compiled in
# batches of RETRYLAB_UNITY_BATCH_SIZE, each batch one translation unit that #includes its files in
# the order the target lists them: the headers (gtest, nlohmann-json, fmt, CLI11) are parsed and
# their templates instantiated once a batch instead of once a file (docs/speed.md, "Build time").
# Only for targets of small files: the engine's entry points stay one file a translation unit (they
# are minutes of CPU each, and two cores share them). A file whose names or macros would clash with
# the others of its batch is left out with SKIP_UNITY_BUILD_INCLUSION beside the target, saying why.
# In a batch, anonymous namespaces are one namespace and a file-scope `using namespace` or #define
# reaches the files after it: the files in these targets keep such things local (no file-scope
# using-directive, no #define left defined, internal names not repeated between files of a target).
function(retrylab_unity)
  if(RETRYLAB_UNITY)
    set_target_properties(${ARGN} PROPERTIES UNITY_BUILD ON UNITY_BUILD_MODE BATCH
                                             UNITY_BUILD_BATCH_SIZE ${RETRYLAB_UNITY_BATCH_SIZE})
  endif()
endfunction()
