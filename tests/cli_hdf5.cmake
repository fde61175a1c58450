# `wave2d run --save-h5` on one process and on several ranks: h5py reads the file as arrays
# equal, bit for bit, to the NPY files of the run on one process (the field and the
# receivers' trace), the frames as an (N, ny, nx) array, and the XDMF sidecar's datasets.
#   cmake -DCLI=... -DWORK=... -DHDF5=ON|OFF [-DCHECKPOINTS=ON] [-DPYTHON=<python3 with h5py>]
#         [-DMPIEXEC=...] [-DSCENE_FILES=ON] -P cli_hdf5.cmake
# Prints "SKIPPED: <reason>" (the test's skip expression) when it cannot run.
if(NOT HDF5)
  # Refused in one line, before anything is written.
  file(REMOVE_RECURSE ${WORK})
  file(MAKE_DIRECTORY ${WORK})
  execute_process(COMMAND ${CLI} run --scene double-slit-small --steps 3 --save-h5 x.h5
                          --output refused
                  WORKING_DIRECTORY ${WORK} RESULT_VARIABLE status ERROR_VARIABLE errors)
  if(NOT status EQUAL 2 OR NOT errors MATCHES "^wave2d: error: cannot write 'x.h5': this build has no HDF5[^\n]*\n$"
     OR EXISTS ${WORK}/refused OR EXISTS ${WORK}/x.h5)
    message(FATAL_ERROR "--save-h5 without HDF5: status ${status}, ${errors}")
  endif()
  message("SKIPPED: this build has no HDF5 (--save-h5 is refused, as checked)")
  return()
endif()
if(NOT PYTHON)
  message("SKIPPED: no python3 with h5py found (install python3-h5py)")
  return()
endif()
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})

function(run_wave2d what)
  execute_process(COMMAND ${ARGN} WORKING_DIRECTORY ${WORK} RESULT_VARIABLE status
                  OUTPUT_VARIABLE out ERROR_VARIABLE errors)
  if(status)
    message(FATAL_ERROR "${what} failed (${status}): ${errors}")
  endif()
endfunction()
function(check what)
  execute_process(COMMAND ${PYTHON} ${CMAKE_CURRENT_LIST_DIR}/hdf5/check_field_file.py ${ARGN}
                  WORKING_DIRECTORY ${WORK} RESULT_VARIABLE status ERROR_VARIABLE errors)
  if(status)
    message(FATAL_ERROR "${what}: ${errors}")
  endif()
endfunction()

# 37 steps, frames at 0, 10, 20, 30 and 37.
set(run run --scene double-slit-small --steps 37 --backend kokkos-tiled --frames-every 10)
run_wave2d("one process" ${CLI} ${run} --output one --save-npy one.npy --save-h5 one.h5)
check("one process" one.h5 --npy one.npy --frames 5)
# A name of XML's special characters: the sidecar still parses and names the file.
set(odd "a&b<c>d\"e'f.h5")
run_wave2d("a name of &<>\"'" ${CLI} ${run} --output odd --save-h5 ${odd})
check("a name of &<>\"'" ${odd} --frames 5 --same-frames one.h5)
set(grids)
if(MPIEXEC AND HDF5)
  set(grids "3:auto" "4:2x2")
else()
  message("not run: the several-rank and checkpoint cases (no mpiexec)")
endif()
foreach(grid ${grids})
  string(REPLACE ":" ";" grid ${grid})
  list(GET grid 0 ranks)
  list(GET grid 1 split)
  run_wave2d("${ranks} ranks" ${MPIEXEC} -n ${ranks} --oversubscribe --bind-to none
             ${CLI} ${run} --ranks ${split} --output many --save-h5 many${ranks}.h5)
  check("${ranks} ranks" many${ranks}.h5 --npy one.npy --frames 5 --same-frames one.h5)
endforeach()

# Checkpoints: written on 3 ranks at steps 10, 20 and 23, resumed on 4 (2 x 2) and on one
# process up to step 37: the NPY of the run on one process that never stopped.
if(grids AND NOT CHECKPOINTS)
  message("not run: the checkpoint cases (this build has no checkpoints: no xxHash)")
elseif(grids)
  set(run run --scene double-slit-small --backend kokkos-tiled)
  run_wave2d("checkpoints on 3 ranks" ${MPIEXEC} -n 3 --oversubscribe --bind-to none ${CLI} ${run}
             --ranks auto --steps 23 --checkpoint-every 10 ck3 --output ck)
  run_wave2d("resumed on 4 ranks" ${MPIEXEC} -n 4 --oversubscribe --bind-to none ${CLI} ${run}
             --ranks 2x2 --steps 37 --resume ck3 --save-npy resumed4.npy --output ck)
  run_wave2d("resumed on one process" ${CLI} ${run} --steps 37 --resume ck3
             --save-npy resumed1.npy --output ck)
  foreach(resumed resumed4.npy resumed1.npy)
    execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files one.npy ${resumed}
                    WORKING_DIRECTORY ${WORK} RESULT_VARIABLE differ)
    if(differ)
      message(FATAL_ERROR "${resumed} differs from the uninterrupted run's one.npy")
    endif()
  endforeach()
endif()

# The receivers' trace, with receivers on both sides of the ranks' boundaries.
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
  run_wave2d("receivers, one process" ${CLI} ${run} --output r1 --save-h5 r1.h5)
  check("receivers, one process" r1.h5 --receivers r1/ds.receivers.npy)
  foreach(grid ${grids})
    string(REPLACE ":" ";" grid ${grid})
    list(GET grid 0 ranks)
    list(GET grid 1 split)
    run_wave2d("receivers, ${ranks} ranks" ${MPIEXEC} -n ${ranks} --oversubscribe --bind-to none
               ${CLI} ${run} --ranks ${split} --output rn --save-h5 r${ranks}.h5)
    check("receivers, ${ranks} ranks" r${ranks}.h5 --receivers r1/ds.receivers.npy)
  endforeach()
endif()

# Refused before the run, nothing written: a file that cannot be made, one named twice.
file(WRITE ${WORK}/blocker "a file where a directory is expected\n")
foreach(bad "blocker/x.h5" "same.npy")
  execute_process(COMMAND ${CLI} run --scene double-slit-small --steps 3 --save-npy same.npy
                          --save-h5 ${bad} --output refused
                  WORKING_DIRECTORY ${WORK} RESULT_VARIABLE status ERROR_VARIABLE errors)
  if(NOT status EQUAL 2 OR NOT errors MATCHES "^wave2d: error: [^\n]*\n$" OR
     EXISTS ${WORK}/refused OR EXISTS ${WORK}/same.npy)
    message(FATAL_ERROR "--save-h5 ${bad}: status ${status}, ${errors}")
  endif()
endforeach()
