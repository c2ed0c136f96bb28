# Fails if BINARY links any Qt library (shoehorn-cli must link only the engine).
execute_process(COMMAND ldd "${BINARY}" OUTPUT_VARIABLE out RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
    message(FATAL_ERROR "ldd failed on ${BINARY}")
endif()
if(out MATCHES "libQt")
    message(FATAL_ERROR "${BINARY} links Qt:\n${out}")
endif()
message(STATUS "${BINARY}: no Qt libraries")
