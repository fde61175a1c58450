# `mpirun -np N wave2d run --ranks ...` writes the same bytes as a run on one process.
#   cmake -DMPIEXEC=... -DRANKS=N -DGRID=PxQ -DCLI=... -DWORK=... [-DSCENE_FILES=ON]
#         -P cli_distributed.cmake
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
set(run run --scene double-slit-small --steps 37 --backend kokkos-tiled)
execute_process(COMMAND ${MPIEXEC} -n ${RANKS} --oversubscribe --bind-to none
                        ${CLI} ${run} --ranks ${GRID} --output many --save-npy many.npy
                WORKING_DIRECTORY ${WORK} RESULT_VARIABLE status ERROR_VARIABLE errors)
if(status)
  message(FATAL_ERROR "the distributed run failed: ${errors}")
endif()
execute_process(COMMAND ${CLI} ${run} --output one --save-npy one.npy
                WORKING_DIRECTORY ${WORK} RESULT_VARIABLE status)
if(status)
  message(FATAL_ERROR "the run on one process failed")
endif()
foreach(file many.npy many/double-slit-small.png)
  string(REPLACE many one other ${file})
  if(NOT EXISTS ${WORK}/${other})  # no image without libpng
    continue()
  endif()
  execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${WORK}/${file} ${WORK}/${other}
                  RESULT_VARIABLE differ)
  if(differ)
    message(FATAL_ERROR "${file} differs from the run on one process")
  endif()
endforeach()
# The receivers' files too, with receivers on both sides of the ranks' boundaries.
if(SCENE_FILES)
  set(receivers "name = \"ds\"\nbase = \"double-slit-small\"\n")
  foreach(cell "100 100" "99 99" "101 100" "100 101" "20 100" "0 0" "150 40" "60 190")
    string(REPLACE " " ";" xy ${cell})
    list(GET xy 0 x)
    list(GET xy 1 y)
    string(APPEND receivers "[[receivers]]\nx = ${x}\ny = ${y}\n")
  endforeach()
  file(WRITE ${WORK}/receivers.toml "${receivers}")
  set(run run --scene receivers.toml --steps 37 --backend kokkos-tiled)
  execute_process(COMMAND ${MPIEXEC} -n ${RANKS} --oversubscribe --bind-to none
                          ${CLI} ${run} --ranks ${GRID} --output many
                  WORKING_DIRECTORY ${WORK} RESULT_VARIABLE status ERROR_VARIABLE errors)
  if(status)
    message(FATAL_ERROR "the distributed run with receivers failed: ${errors}")
  endif()
  execute_process(COMMAND ${CLI} ${run} --output one
                  WORKING_DIRECTORY ${WORK} RESULT_VARIABLE status)
  if(status)
    message(FATAL_ERROR "the run with receivers on one process failed")
  endif()
  foreach(file many/ds.receivers.npy many/ds.receivers.csv many/ds.receivers.png)
    string(REPLACE many one other ${file})
    if(NOT EXISTS ${WORK}/${other} AND NOT file MATCHES "png$")
      message(FATAL_ERROR "no ${other}")
    endif()
    if(NOT EXISTS ${WORK}/${other})  # no plot without libplot
      continue()
    endif()
    execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${WORK}/${file} ${WORK}/${other}
                    RESULT_VARIABLE differ)
    if(differ)
      message(FATAL_ERROR "${file} differs from the run on one process")
    endif()
  endforeach()
endif()
# A job of several ranks without --ranks is refused, once.
execute_process(COMMAND ${MPIEXEC} -n ${RANKS} --oversubscribe ${CLI} ${run}
                WORKING_DIRECTORY ${WORK} RESULT_VARIABLE status ERROR_VARIABLE errors)
string(REGEX MATCHALL "wave2d: error:" said "${errors}")
list(LENGTH said times)
if(NOT status OR (RANKS GREATER 1 AND NOT times EQUAL 1))
  message(FATAL_ERROR "without --ranks: status ${status}, said ${times} times: ${errors}")
endif()
