# `mpirun -np N wave2d run --ranks ...` writes the same bytes as a run on one process.
#   cmake -DMPIEXEC=... -DRANKS=N -DGRID=PxQ -DCLI=... -DWORK=... [-DSCENE_FILES=ON]
#         -P cli_distributed.cmake
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
# Runs `run` (with many_options, one_options) on RANKS ranks into many/ and on one process
# into one/, then compares each of `files` with its one/ twin, which must exist unless
# `optional` matches it (built without the library that makes it).
function(compare_runs what optional)
  execute_process(COMMAND ${MPIEXEC} -n ${RANKS} --oversubscribe --bind-to none
                          ${CLI} ${run} --ranks ${GRID} --output many ${many_options}
                  WORKING_DIRECTORY ${WORK} RESULT_VARIABLE status ERROR_VARIABLE errors)
  if(status)
    message(FATAL_ERROR "the distributed run ${what} failed: ${errors}")
  endif()
  execute_process(COMMAND ${CLI} ${run} --output one ${one_options}
                  WORKING_DIRECTORY ${WORK} RESULT_VARIABLE status)
  if(status)
    message(FATAL_ERROR "the run ${what} on one process failed")
  endif()
  foreach(file ${files})
    string(REPLACE many one other ${file})
    if(NOT EXISTS ${WORK}/${other})
      if(file MATCHES "${optional}")
        continue()
      endif()
      message(FATAL_ERROR "no ${other}")
    endif()
    execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${WORK}/${file} ${WORK}/${other}
                    RESULT_VARIABLE differ)
    if(differ)
      message(FATAL_ERROR "${file} differs from the run on one process")
    endif()
  endforeach()
endfunction()

set(run run --scene double-slit-small --steps 37 --backend kokkos-tiled)
set(many_options --save-npy many.npy)
set(one_options --save-npy one.npy)
set(files many.npy many/double-slit-small.png)
compare_runs("" "png$")  # no image without libpng
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
  set(many_options)
  set(one_options)
  set(files many/ds.receivers.npy many/ds.receivers.csv many/ds.receivers.png)
  compare_runs("with receivers" "png$")  # no plot without libplot
endif()
# A job of several ranks without --ranks is refused, once.
execute_process(COMMAND ${MPIEXEC} -n ${RANKS} --oversubscribe ${CLI} ${run}
                WORKING_DIRECTORY ${WORK} RESULT_VARIABLE status ERROR_VARIABLE errors)
string(REGEX MATCHALL "wave2d: error:" said "${errors}")
list(LENGTH said times)
if(NOT status OR (RANKS GREATER 1 AND NOT times EQUAL 1))
  message(FATAL_ERROR "without --ranks: status ${status}, said ${times} times: ${errors}")
endif()
