# Cross-rank agreement (included from tests/CMakeLists.txt). Each COLLTUNE_* setting that must
# agree is set differently on rank 0 and the other ranks (MPMD through per-rank-env.sh): the job
# completes with correct results on native collectives only (statistics, which need only
# COLLTUNE_STATS to agree, prove it), and rank 0 names the variable and the ranks that differ. With
# COLLTUNE_FALLBACK=error on any rank, every rank stops cleanly.
set(PER_RANK ${CMAKE_CURRENT_SOURCE_DIR}/per-rank-env.sh)
set(DATA ${CMAKE_CURRENT_SOURCE_DIR}/data)

# agree_test(NAME NP VAR VAL0 VAL1 MESSAGE [ENV...]): MESSAGE is what follows "ranks disagree: ".
function(agree_test name np var v0 v1 message)
  set(stats ${NATIVE_STATS})
  if(var STREQUAL "COLLTUNE_STATS")
    set(stats --no-grep "stats op=")  # statistics need COLLTUNE_STATS to agree
  endif()
  colltune_mpi_test(agree_${name} ${np} ENV COLLTUNE_STATS=1 ${ARGN}
    ARGS --count 1 "colltune: error: ranks disagree: ${message}. running native collectives"
         --count 1 "colltune: error" --grep "PASS" ${stats}
         ${np} ${PER_RANK} ${var} ${v0} ${v1} $<TARGET_FILE:e2e_c_app>)
endfunction()

agree_test(disable 2 COLLTUNE_DISABLE 1 @unset "COLLTUNE_DISABLE .rank 0: '1'. differs on rank 1")
agree_test(stats 3 COLLTUNE_STATS 1 0 "COLLTUNE_STATS .rank 0: '1'. differs on ranks 1-2")
agree_test(verbose 2 COLLTUNE_VERBOSE 0 1 "COLLTUNE_VERBOSE .rank 0: '0'. differs on rank 1"
  "COLLTUNE_CONFIG=${DATA}/rules-topology.yaml")
agree_test(fallback 2 COLLTUNE_FALLBACK silent warn
  "COLLTUNE_FALLBACK .rank 0: 'silent'. differs on rank 1")
foreach(op bcast scatter gather)
  string(TOUPPER ${op} OP)
  list(GET COLLTUNE_ALGORITHMS_${op} 1 algo)  # the first algorithm after native
  agree_test(${op}_algorithm 2 COLLTUNE_${OP}_ALGORITHM ${algo} @unset
    "COLLTUNE_${OP}_ALGORITHM .rank 0: '${algo}'. differs on rank 1")
endforeach()
agree_test(config_contents 2 COLLTUNE_CONFIG ${DATA}/rules-by-bytes.yaml ${DATA}/rules-topology.yaml
  "COLLTUNE_CONFIG .contents. .rank 0: '[^']*rules-by-bytes.yaml'. differs on rank 1")
set(MODEL_A ${CMAKE_CURRENT_BINARY_DIR}/model-a.yaml)
set(MODEL_B ${CMAKE_CURRENT_BINARY_DIR}/model-b.yaml)
set(WITH_MODEL ${CMAKE_CURRENT_SOURCE_DIR}/with-model-table.sh $<TARGET_FILE:colltune-info>)
add_test(NAME agree_model_contents
  COMMAND ${WITH_MODEL} ${DATA}/model-decisions.yaml ${MODEL_A}
          ${WITH_MODEL} ${DATA}/model-decisions-b.yaml ${MODEL_B} ${RUN_MPI}
          --count 1 "colltune: error: ranks disagree: COLLTUNE_MODEL .contents. .rank 0: '[^']*model-a.yaml'. differs on rank 1. running native"
          --grep "PASS" ${NATIVE_STATS}
          2 ${PER_RANK} COLLTUNE_MODEL ${MODEL_A} ${MODEL_B} $<TARGET_FILE:e2e_c_app>)
set_tests_properties(agree_model_contents PROPERTIES LABELS mpi TIMEOUT 300 RUN_SERIAL ON
  ENVIRONMENT "${MPI_TEST_ENV};COLLTUNE_STATS=1")

# Paths may differ when what they load agrees: the job is tuned as configured.
configure_file(${DATA}/rules-by-bytes.yaml ${CMAKE_CURRENT_BINARY_DIR}/rules-by-bytes-copy.yaml COPYONLY)
colltune_mpi_test(agree_config_same_contents_other_path 2 ENV COLLTUNE_STATS=1
  ARGS --grep "PASS" --no-grep "colltune: error" --grep "op=bcast algorithm=linear calls="
       2 ${PER_RANK} COLLTUNE_CONFIG ${DATA}/rules-by-bytes.yaml
       ${CMAKE_CURRENT_BINARY_DIR}/rules-by-bytes-copy.yaml $<TARGET_FILE:e2e_c_app>)

# COLLTUNE_FALLBACK=error on one rank only: every rank stops cleanly (exit 1, no hang).
colltune_mpi_test(agree_fallback_error_anywhere_stops 2 ENV COLLTUNE_SCATTER_ALGORITHM=linear
  ARGS --exit 1 --count 1 "ranks disagree: COLLTUNE_FALLBACK .rank 0: 'warn'. differs on rank 1 .COLLTUNE_FALLBACK=error: stopping."
       --no-grep "PASS" 2 ${PER_RANK} COLLTUNE_FALLBACK warn error $<TARGET_FILE:e2e_c_app>)
