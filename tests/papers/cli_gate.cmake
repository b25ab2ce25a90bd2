# papers_cli_gate: run with -DRETRYLAB=<exe> -DTEST_DIR=<tests/papers> -DWORK_DIR=<scratch>.
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR}/certificates ${WORK_DIR}/paper)
set(ENV{RETRYLAB_CERTIFICATE_DIR} ${WORK_DIR}/certificates)  # empty: no certificate for this build

function(expect_exit code pattern)
  execute_process(COMMAND ${RETRYLAB} ${ARGN} RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_VARIABLE out
                  WORKING_DIRECTORY ${WORK_DIR})
  if(NOT rc EQUAL code)
    message(FATAL_ERROR "retrylab ${ARGN}: exit ${rc}, expected ${code}\nstderr: ${err}")
  endif()
  if(NOT err MATCHES "${pattern}")
    message(FATAL_ERROR "retrylab ${ARGN}: stderr does not match '${pattern}':\n${err}")
  endif()
endfunction()

expect_exit(1 "retrylab validate" run ${TEST_DIR}/tiny_study.toml --out ${WORK_DIR}/out --quiet)
file(COPY ${TEST_DIR}/tiny_study.toml DESTINATION ${WORK_DIR}/paper)
file(RENAME ${WORK_DIR}/paper/tiny_study.toml ${WORK_DIR}/paper/study.toml)
expect_exit(1 "retrylab validate" reproduce ${WORK_DIR}/paper --no-validate --quiet)
if(EXISTS ${WORK_DIR}/out/results.jsonl OR EXISTS ${WORK_DIR}/paper/results.jsonl)
  message(FATAL_ERROR "a refused run wrote results")
endif()
# Bad input is exit 2 with the key and line, before any gate.
file(WRITE ${WORK_DIR}/bad.toml "[study]\nname = \"b\"\n[sweep.s]\nkind = \"grid\"\nrunz = 3\n")
expect_exit(2 "bad.toml:5: sweep.s.runz is not a known key" run ${WORK_DIR}/bad.toml --quiet)
expect_exit(2 "--scale" run ${WORK_DIR}/bad.toml --scale huge)
file(WRITE ${WORK_DIR}/bad_series.toml "[study]\nname = \"b\"\n[sweep.s]\nkind = \"series\"\nunit = \"s\"\nattempt_duration = 0.01\nrate = 100\nhorizon = 60\nbin = 1\nevent = [10, 20]\n  [[sweep.s.policies]]\n  name = \"a\"\n  retry_limit = 3\n")
expect_exit(2 "bad_series.toml:13: sweep.s.policies\\[0\\].retry_limit is not a key of a policy" run ${WORK_DIR}/bad_series.toml --quiet)
file(WRITE ${WORK_DIR}/bad_profile.toml "[study]\nname = \"b\"\n[sweep.s]\nkind = \"grid\"\nhorizon = 60\nload_profile = \"../../etc/trace.csv\"\n")
expect_exit(2 "bad_profile.toml:6: sweep.s.load_profile must name a file inside the spec's folder" run ${WORK_DIR}/bad_profile.toml --quiet)
expect_exit(2 "PAPER must be a paper folder" reproduce ${WORK_DIR}/nowhere --quiet)

# A study reusing a certificate gets that certificate's validation table (kept beside it by
# `validate`), never a stale one: OUT/validation is replaced by the certified table.
expect_exit(0 "certificate" validate --quick --threads 2)
file(GLOB certs ${WORK_DIR}/certificates/*.json)
list(LENGTH certs n_certs)
if(NOT n_certs EQUAL 1)
  message(FATAL_ERROR "expected one certificate, found: ${certs}")
endif()
get_filename_component(cert_id ${certs} NAME_WE)
file(MAKE_DIRECTORY ${WORK_DIR}/out2/validation)
file(WRITE ${WORK_DIR}/out2/validation/validation.md "a stale table of another build\n")
expect_exit(0 "copied to" run ${TEST_DIR}/tiny_study.toml --out ${WORK_DIR}/out2 --threads 2)
file(READ ${WORK_DIR}/out2/validation/validation.md copied)
file(READ ${WORK_DIR}/certificates/${cert_id}/validation.md kept)
if(NOT copied STREQUAL kept OR copied MATCHES "stale")
  message(FATAL_ERROR "OUT/validation/validation.md is not the table of certificate ${cert_id}")
endif()

# The incident study at quick scale (papers/incident, five sweeps: 8, 8, 8, 7 and 6 points, about 10 s on 2 cores): the
# committed spec runs and writes its tables, series and figures.
expect_exit(0 "37 points run" run ${TEST_DIR}/../../papers/incident/study.toml --scale quick --out ${WORK_DIR}/incident
            --threads 2)
foreach(f outage.md spike.csv spike_series.csv outage_goodput.svg spike_backlog.png replicas.md tail_tail.md tail_latency.svg)
  if(NOT EXISTS ${WORK_DIR}/incident/${f})
    message(FATAL_ERROR "the incident study at quick scale did not write ${f}")
  endif()
endforeach()
# A certificate without stored tables (an older retrylab): OUT/validation is left alone, and said so.
file(REMOVE_RECURSE ${WORK_DIR}/certificates/${cert_id})
expect_exit(0 "is not stored" run ${TEST_DIR}/tiny_study.toml --out ${WORK_DIR}/out3 --quiet)
if(EXISTS ${WORK_DIR}/out3/validation/validation.md)
  message(FATAL_ERROR "a table appeared for a certificate without stored tables")
endif()

# `reproduce PAPER` without --out writes to out/<paper folder name>/ (relative to the working
# directory) and leaves the paper folder's committed files alone; --out naming the paper folder
# writes there; a default that would be the paper folder itself is refused (exit 2, naming --out).
file(WRITE ${WORK_DIR}/paper/README.template.md "# Tiny ({{scale}} scale)\n")
expect_exit(0 "files in out/paper" reproduce paper --threads 2)
if(NOT EXISTS ${WORK_DIR}/out/paper/results.jsonl OR NOT EXISTS ${WORK_DIR}/out/paper/README.md)
  message(FATAL_ERROR "reproduce without --out did not write out/paper/")
endif()
file(GLOB written ${WORK_DIR}/paper/*)
if(NOT written STREQUAL "${WORK_DIR}/paper/README.template.md;${WORK_DIR}/paper/study.toml")
  message(FATAL_ERROR "reproduce without --out wrote into the paper folder: ${written}")
endif()
expect_exit(0 "files in paper " reproduce paper --out paper --threads 2)
if(NOT EXISTS ${WORK_DIR}/paper/results.jsonl)
  message(FATAL_ERROR "reproduce --out paper did not write into the paper folder")
endif()
file(COPY ${WORK_DIR}/paper/study.toml DESTINATION ${WORK_DIR}/out/paper)
expect_exit(2 "^retrylab: --out must be given to write into the paper folder out/paper itself" reproduce out/paper --quiet)
