# Bad input cases (included from tests/CMakeLists.txt). Each: exactly one error line, on rank 0,
# naming the file (or variable), the line or field and the valid choices; the unmodified C
# program then runs correctly on native collectives only. With COLLTUNE_FALLBACK=error the job
# stops cleanly with exit status 1.
set(DATA ${CMAKE_CURRENT_SOURCE_DIR}/data)
set(NATIVE_ONLY --grep "PASS" ${NATIVE_STATS})

function(bad_input name message)
  colltune_mpi_test(badinput_${name} 2 ENV COLLTUNE_STATS=1 ${ARGN}
    ARGS --count 1 "${message}" --count 1 "colltune: error" ${NATIVE_ONLY} 2 $<TARGET_FILE:e2e_c_app>)
endfunction()

bad_input(broken_yaml "error: .*broken.yaml:5: yaml: .*. running native collectives"
  "COLLTUNE_CONFIG=${DATA}/broken.yaml" COLLTUNE_BCAST_ALGORITHM=auto)
bad_input(unknown_algorithm
  "unknown-algorithm.yaml:5: rules\\[0\\]\\.algorithm: unknown algorithm 'fastest' \\(valid: ${CHOICES_scatter}\\)"
  "COLLTUNE_CONFIG=${DATA}/unknown-algorithm.yaml")
bad_input(absurd_value "absurd.yaml:4: rules\\[0\\]\\.bytes: '-5' is not a byte count"
  "COLLTUNE_CONFIG=${DATA}/absurd.yaml")
bad_input(missing_config "/nonexistent/colltune.yaml: file: cannot be opened for reading"
  "COLLTUNE_CONFIG=/nonexistent/colltune.yaml")
bad_input(unknown_env_algorithm
  "COLLTUNE_GATHER_ALGORITHM: unknown algorithm 'ring' \\(valid: auto, ${CHOICES_gather}\\)"
  COLLTUNE_GATHER_ALGORITHM=ring COLLTUNE_BCAST_ALGORITHM=linear)
bad_input(bad_fallback_value "COLLTUNE_FALLBACK: invalid value 'loud' \\(valid: silent, warn, error\\)"
  COLLTUNE_FALLBACK=loud COLLTUNE_BCAST_ALGORITHM=linear)
bad_input(model_other_platform
  "example-model.yaml: platform: table made for another platform"
  "COLLTUNE_MODEL=${PROJECT_SOURCE_DIR}/config/example-model.yaml")
bad_input(model_overlapping_ranges
  "overlapping-model.yaml:11: decisions\\.bcast\\[0\\]\\.bytes\\[1\\]\\.range: \\[50, 200\\] overlaps or precedes \\[0, 100\\]"
  "COLLTUNE_MODEL=${DATA}/overlapping-model.yaml")
bad_input(model_foreign_file "rules-by-bytes.yaml:2: top level.version: unknown key \\(valid: colltune_model, generated_by, platform, decisions, model, calibration, validation\\)"
  "COLLTUNE_MODEL=${DATA}/rules-by-bytes.yaml")
bad_input(model_missing "/nonexistent/model.yaml: file: cannot be opened"
  "COLLTUNE_MODEL=/nonexistent/model.yaml")
bad_input(model_directory "${DATA}: file: not a regular file" "COLLTUNE_MODEL=${DATA}")

# COLLTUNE_FALLBACK=error: a bad configuration stops the job cleanly with exit status 1.
colltune_mpi_test(badinput_fallback_error_stops 2
  ENV "COLLTUNE_CONFIG=${DATA}/broken.yaml" COLLTUNE_FALLBACK=error
  ARGS --exit 1 --count 1 "broken.yaml:5: yaml: .*COLLTUNE_FALLBACK=error: stopping"
       --no-grep "PASS" 2 $<TARGET_FILE:e2e_c_app>)

# A forced algorithm that cannot run (intercommunicator): warned once, native serves the call.
colltune_mpi_test(fallback_intercomm_warn 2
  ENV COLLTUNE_BCAST_ALGORITHM=linear COLLTUNE_FALLBACK=warn COLLTUNE_STATS=1
  ARGS --grep ": 0 failed"
       --count 1 "warning: COLLTUNE_BCAST_ALGORITHM=linear cannot run here: intercommunicators are passed through. using native"
       --grep "op=bcast algorithm=native calls=" --grep "op=bcast algorithm=linear calls="
       2 $<TARGET_FILE:mpi_intercomm>)
colltune_mpi_test(fallback_intercomm_silent 2
  ENV COLLTUNE_BCAST_ALGORITHM=linear COLLTUNE_FALLBACK=silent
  ARGS --grep ": 0 failed" --no-grep "colltune" 2 $<TARGET_FILE:mpi_intercomm>)
colltune_mpi_test(fallback_intercomm_error 2
  ENV COLLTUNE_BCAST_ALGORITHM=linear COLLTUNE_FALLBACK=error
  ARGS --exit nonzero --count 1 "error: COLLTUNE_BCAST_ALGORITHM=linear cannot run here" 2 $<TARGET_FILE:mpi_intercomm>)
