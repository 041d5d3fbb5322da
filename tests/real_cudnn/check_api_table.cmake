# Regenerates the cuDNN API table from the real headers and fails when the committed copy differs.
execute_process(COMMAND ${PYTHON} ${SCRIPT} ${INCLUDE} ${OUT} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "scripts/gen_cudnn_api.py failed (${rc})")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${OUT} ${COMMITTED} RESULT_VARIABLE diff)
if(NOT diff EQUAL 0)
  message(FATAL_ERROR "lib/core/cudnn_api_table.inc is stale for the cuDNN headers in ${INCLUDE}: run python3 scripts/gen_cudnn_api.py")
endif()
