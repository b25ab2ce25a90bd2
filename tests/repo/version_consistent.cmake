# repo_version_consistent: run with -DVERSION=<PROJECT_VERSION> -DROOT=<source dir>. The CMake project
# version is the single source; CITATION.cff's `version:` and CHANGELOG.md's newest released heading
# ("## [X.Y.Z] - date", the first one after "## [Unreleased]") must repeat it.
file(STRINGS ${ROOT}/CITATION.cff cff_version REGEX "^version: ")
if(NOT cff_version STREQUAL "version: ${VERSION}")
  message(FATAL_ERROR "CITATION.cff says '${cff_version}', CMakeLists.txt's project version is ${VERSION}")
endif()
file(STRINGS ${ROOT}/CHANGELOG.md headings REGEX "^## \\[")
list(FILTER headings EXCLUDE REGEX "^## \\[Unreleased\\]")
list(LENGTH headings n)
if(n EQUAL 0)
  message(FATAL_ERROR "CHANGELOG.md has no released version heading")
endif()
list(GET headings 0 newest)
if(NOT newest MATCHES "^## \\[${VERSION}\\] - [0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]$")
  message(FATAL_ERROR "CHANGELOG.md's newest release is '${newest}', CMakeLists.txt's project version is ${VERSION}")
endif()
message(STATUS "version ${VERSION}: CITATION.cff and CHANGELOG.md agree")
