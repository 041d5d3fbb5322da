# Regenerates the cuDNN API table from the real headers and fails when the committed copy differs.
# The table is generated to a name of this run's own next to OUT (two ctest runs in one build
# folder do not write one file), and removed once compared.
string(RANDOM LENGTH 12 run)
set(generated "${OUT}.${run}")
execute_process(COMMAND ${PYTHON} ${SCRIPT} ${INCLUDE} ${generated} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  file(REMOVE ${generated})
  message(FATAL_ERROR "scripts/gen_cudnn_api.py failed (${rc})")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${generated} ${COMMITTED} RESULT_VARIABLE diff)
file(REMOVE ${generated})
if(NOT diff EQUAL 0)
  message(FATAL_ERROR "lib/core/cudnn_api_table.inc is stale for the cuDNN headers in ${INCLUDE}: run python3 scripts/gen_cudnn_api.py")
endif()
