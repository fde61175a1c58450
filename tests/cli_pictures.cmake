# A grid wider than a picture may be (max_picture_side): `wave2d run` draws it at a scale,
# and a distributed run, whose ranks each reduce their cells to the picture's pixels and
# write their rows of the NPY through MPI-IO, writes the same bytes as one process.
#   cmake -DCLI=... -DWORK=... [-DPNG=ON] [-DMPIEXEC=...] -P cli_pictures.cmake
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
# 8200 x 40 cells: a picture of 2734 x 14 pixels, 3 x 3 cells each, and its colour bar.
file(WRITE ${WORK}/wide.toml "name = \"wide\"\n[grid]\nnx = 8200\nny = 40\n[time]\nsteps = 30\n"
                             "[[sources]]\nx = 4100\ny = 20\nfrequency = 20.0\n"
                             "[[walls]]\nrect = { x0 = 2734, y0 = 0, x1 = 2736, y1 = 30 }\n")
set(run run --scene wide.toml --backend kokkos-mdrange --frames-every 15)
execute_process(COMMAND ${CLI} ${run} --output one --save-npy one.npy
                WORKING_DIRECTORY ${WORK} RESULT_VARIABLE status ERROR_VARIABLE errors)
if(status)
  message(FATAL_ERROR "the run on one process failed: ${errors}")
endif()
if(NOT PNG)
  message("SKIPPED: built without libpng: no image")
  return()
endif()
if(NOT EXISTS ${WORK}/one/wide.png)
  message(FATAL_ERROR "the run on one process wrote no one/wide.png")
endif()
file(READ ${WORK}/one/wide.png header OFFSET 16 LIMIT 4 HEX)
math(EXPR width "0x${header}")
if(width LESS 2734 OR width GREATER 2834)
  message(FATAL_ERROR "the picture is ${width} pixels wide, not 2734 and its colour bar")
endif()
if(NOT MPIEXEC)
  message("SKIPPED: no MPI: the picture of one process checked alone")
  return()
endif()
foreach(job "3:3x1" "4:2x2")
  string(REPLACE ":" ";" job ${job})
  list(GET job 0 ranks)
  list(GET job 1 split)
  execute_process(COMMAND ${MPIEXEC} -n ${ranks} --oversubscribe --bind-to none ${CLI} ${run}
                          --ranks ${split} --output ${split} --save-npy ${split}.npy
                  WORKING_DIRECTORY ${WORK} RESULT_VARIABLE status ERROR_VARIABLE errors)
  if(status)
    message(FATAL_ERROR "the run on ${split} ranks failed: ${errors}")
  endif()
  foreach(pair "one/wide.png:${split}/wide.png" "one/wide.000015.png:${split}/wide.000015.png"
               "one.npy:${split}.npy")
    string(REPLACE ":" ";" pair ${pair})
    execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${pair}
                    WORKING_DIRECTORY ${WORK} RESULT_VARIABLE differ)
    if(differ)
      message(FATAL_ERROR "${pair}: the ${split} ranks' file differs from one process's")
    endif()
  endforeach()
endforeach()
