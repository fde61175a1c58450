# Installs the wave2d build into a fresh prefix, then configures, builds and runs the
# downstream application against that installation only.
#   cmake -DWAVE2D_BUILD=... -DSOURCE=... -DWORK=... -DKOKKOS_DIR=... [-DCXX_FLAGS=...]
#         -P run_downstream.cmake
# CXX_FLAGS (the sanitizers' flags of a sanitized build) go to compiling and linking.
file(REMOVE_RECURSE ${WORK})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${WAVE2D_BUILD} --prefix ${WORK}/prefix
                RESULT_VARIABLE status OUTPUT_QUIET)
if(status)
  message(FATAL_ERROR "installing wave2d failed")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -S ${SOURCE} -B ${WORK}/build -G Ninja
                        -DCMAKE_BUILD_TYPE=Release
                        -DCMAKE_PREFIX_PATH=${WORK}/prefix -DKokkos_DIR=${KOKKOS_DIR}
                        -DCMAKE_CXX_COMPILER=${CXX_COMPILER}
                        "-DCMAKE_CXX_FLAGS=${CXX_FLAGS}" "-DCMAKE_EXE_LINKER_FLAGS=${CXX_FLAGS}"
                RESULT_VARIABLE status)
if(status)
  message(FATAL_ERROR "configuring the downstream application failed")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${WORK}/build RESULT_VARIABLE status)
if(status)
  message(FATAL_ERROR "building the downstream application failed")
endif()
execute_process(COMMAND ${WORK}/build/downstream RESULT_VARIABLE status)
if(status)
  message(FATAL_ERROR "the downstream application failed")
endif()
