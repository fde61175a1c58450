# cmake --install BUILD into a fresh PREFIX.
file(REMOVE_RECURSE ${PREFIX})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD} --prefix ${PREFIX}
                RESULT_VARIABLE status)
if(status)
  message(FATAL_ERROR "installing wave2d into ${PREFIX} failed")
endif()
