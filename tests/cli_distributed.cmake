# `mpirun -np N wave2d run --ranks ...` writes the same bytes as a run on one process, and
# fails as it does.
#   cmake -DMPIEXEC=... -DRANKS=N -DGRID=PxQ -DCLI=... -DWORK=... [-DSCENE_FILES=ON]
#         [-DPNG=ON] [-DPLOT=ON] -P cli_distributed.cmake
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})

# Runs `run` (with ranks and many_options, one_options) on RANKS ranks into many/ and on
# one process into one/. Sets many_status, one_status; many_errors, one_errors: the lines
# that say "wave2d: error:"; many_times, one_times: how many there are; many_stdout.
function(run_both)
  file(REMOVE_RECURSE ${WORK}/many ${WORK}/one)
  execute_process(COMMAND ${MPIEXEC} -n ${RANKS} --oversubscribe --bind-to none
                          ${CLI} ${run} ${ranks} --output many ${many_options}
                  WORKING_DIRECTORY ${WORK} RESULT_VARIABLE many_status ERROR_VARIABLE many
                  OUTPUT_VARIABLE many_stdout)
  set(many_stdout "${many_stdout}" PARENT_SCOPE)
  execute_process(COMMAND ${CLI} ${run} --output one ${one_options}
                  WORKING_DIRECTORY ${WORK} RESULT_VARIABLE one_status ERROR_VARIABLE one)
  foreach(side many one)
    string(REGEX MATCHALL "wave2d: error: [^\n]*" errors "${${side}}")
    string(REGEX MATCHALL "wave2d: error:" said "${${side}}")
    list(LENGTH said times)
    set(${side}_times ${times} PARENT_SCOPE)
    set(${side}_status ${${side}_status} PARENT_SCOPE)
    set(${side}_errors "${errors}" PARENT_SCOPE)
    set(${side}_stderr "${${side}}" PARENT_SCOPE)
  endforeach()
endfunction()

# Each of `files` equals its one/ twin, both written unless the build has not the library
# that makes it (libplotter the receivers' plot, libpng the other images).
function(compare_files what)
  foreach(file ${files})
    string(REPLACE many one other ${file})
    if(file MATCHES "receivers\\.png$")
      if(NOT PLOT)
        continue()
      endif()
    elseif(file MATCHES "\\.png$" AND NOT PNG)
      continue()
    endif()
    foreach(written ${file} ${other})
      if(NOT EXISTS ${WORK}/${written})
        message(FATAL_ERROR "no ${written} ${what}")
      endif()
    endforeach()
    execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${WORK}/${file} ${WORK}/${other}
                    RESULT_VARIABLE differ)
    if(differ)
      message(FATAL_ERROR "${file} differs from the run on one process ${what}")
    endif()
  endforeach()
endfunction()

# Both runs succeed and write the same `files`; sets many_stdout.
function(compare_runs what)
  run_both()
  set(many_stdout "${many_stdout}" PARENT_SCOPE)
  if(many_status)
    message(FATAL_ERROR "the distributed run ${what} failed: ${many_stderr}")
  endif()
  if(one_status)
    message(FATAL_ERROR "the run ${what} on one process failed: ${one_stderr}")
  endif()
  compare_files("${what}")
endfunction()

set(ranks --ranks ${GRID})
set(run run --scene double-slit-small --steps 37 --backend kokkos-tiled)
set(many_options --save-npy many.npy)
set(one_options --save-npy one.npy)
set(files many.npy many/double-slit-small.png)
compare_runs("")
# A job of several ranks without --ranks splits as --ranks auto does.
set(ranks)
compare_runs("without --ranks")
set(ranks --ranks ${GRID})
# Ranks that step while their halos travel write the same bytes, and say that they do.
set(many_options --save-npy many.npy --overlap yes)
compare_runs("with --overlap yes")
if(NOT many_stdout MATCHES "ranks +[0-9]+ x [0-9]+, halo [0-9]+, exchange [^\n]*, overlapped\n")
  message(FATAL_ERROR "--overlap yes: no overlapped ranks in\n${many_stdout}")
endif()
set(many_options --save-npy many.npy --overlap no)
compare_runs("with --overlap no")
if(many_stdout MATCHES "overlapped")
  message(FATAL_ERROR "--overlap no: overlapped ranks in\n${many_stdout}")
endif()
set(many_options --save-npy many.npy)

# A split that does not make the job is a usage error, said once.
set(ranks --ranks ${RANKS}x2)
run_both()
if(NOT many_status EQUAL 2 OR NOT many_times EQUAL 1 OR
   NOT many_errors MATCHES "--ranks ${RANKS}x2: ranks ${RANKS} x 2 do not make a job of ${RANKS} ranks")
  message(FATAL_ERROR "--ranks ${RANKS}x2 on ${RANKS} ranks: status ${many_status}: ${many_stderr}")
endif()
set(ranks --ranks ${GRID})

if(NOT SCENE_FILES)
  return()
endif()
# The receivers' files too, with receivers on both sides of the ranks' boundaries.
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
compare_runs("with receivers")

# An unstable run stops at the same step on every rank, names the same cell (in the last
# rank's block) with the same status, and keeps the same last finite state.
file(WRITE ${WORK}/diverging.toml
     "[grid]\nnx = 64\nny = 48\n[time]\nsteps = 400\ndt = 0.05\n"
     "[[sources]]\nx = 50\ny = 40\nfrequency = 20.0\n")
set(run run --scene diverging.toml --allow-unstable --backend kokkos-tiled --keep-last-finite)
set(many_options --save-npy many.npy)
set(one_options --save-npy one.npy)
run_both()
if(NOT one_status EQUAL 1 OR NOT many_status EQUAL one_status OR NOT many_times EQUAL 1 OR
   NOT many_errors STREQUAL one_errors)
  message(FATAL_ERROR "going non-finite: status ${many_status}, on one process ${one_status}: "
                      "'${many_errors}', on one process '${one_errors}'")
endif()
set(files many.npy many/diverging.png)
compare_files("going non-finite, the last finite state")
# So too where the ranks step while their halos travel (halo 1: the windows hold the strips).
set(run run --scene diverging.toml --allow-unstable --backend kokkos-mdrange --keep-last-finite)
set(many_options --save-npy many.npy --overlap yes)
run_both()
if(NOT one_status EQUAL 1 OR NOT many_status EQUAL one_status OR NOT many_times EQUAL 1 OR
   NOT many_errors STREQUAL one_errors OR NOT many_stdout MATCHES ", overlapped\n")
  message(FATAL_ERROR "going non-finite, overlapped: status ${many_status}, on one process "
                      "${one_status}: '${many_errors}', on one process '${one_errors}'\n${many_stdout}")
endif()
compare_files("going non-finite with --overlap yes, the last finite state")

# Planning measures one process's grid: under mpirun it is refused, once, by rank 0 even
# where it starts last (mpirun ends the job when the first rank fails).
set(rank "\${OMPI_COMM_WORLD_RANK:-\${PMI_RANK:-0}}")
set(rank_0_late "if [ ${rank} = 0 ]; then sleep 1; fi; exec \"\$0\" \"\$@\"")
execute_process(COMMAND ${MPIEXEC} -n ${RANKS} --oversubscribe --bind-to none
                        sh -c "${rank_0_late}" ${CLI} plan --scene double-slit-small
                WORKING_DIRECTORY ${WORK} RESULT_VARIABLE status ERROR_VARIABLE errors
                OUTPUT_VARIABLE out)
string(REGEX MATCHALL "wave2d: error:" said "${errors}")
list(LENGTH said times)
if(status EQUAL 0 OR NOT times EQUAL 1 OR
   NOT errors MATCHES "plan measures the grid on one process: run it without mpirun")
  message(FATAL_ERROR "plan under mpirun: status ${status}, ${times} errors: ${errors}${out}")
endif()

# The lists, help and version: once, from rank 0.
foreach(command "scenes" "backends" "--version" "run --help")
  separate_arguments(arguments UNIX_COMMAND "${command}")
  execute_process(COMMAND ${MPIEXEC} -n ${RANKS} --oversubscribe --bind-to none ${CLI} ${arguments}
                  WORKING_DIRECTORY ${WORK} RESULT_VARIABLE status OUTPUT_VARIABLE out)
  execute_process(COMMAND ${CLI} ${arguments} RESULT_VARIABLE alone_status OUTPUT_VARIABLE alone)
  if(NOT status EQUAL 0 OR NOT out STREQUAL alone)
    message(FATAL_ERROR "${command} under mpirun: status ${status}, printed\n${out}\nnot\n${alone}")
  endif()
endforeach()

# A rank that fails alone before the ranks meet says so itself (rank 0 waits in MPI).
set(rank_1_fails "if [ ${rank} = 1 ]; then export KOKKOS_NUM_THREADS=; fi; exec \"\$0\" \"\$@\"")
execute_process(COMMAND ${MPIEXEC} -n ${RANKS} --oversubscribe --bind-to none
                        sh -c "${rank_1_fails}" ${CLI} run --scene double-slit-small --steps 4
                        --output alone
                WORKING_DIRECTORY ${WORK} RESULT_VARIABLE status ERROR_VARIABLE errors
                OUTPUT_VARIABLE out)
string(REGEX MATCHALL "wave2d: error:" said "${errors}")
list(LENGTH said times)
if(NOT status EQUAL 2 OR NOT times EQUAL 1 OR NOT errors MATCHES "error: rank 1: KOKKOS_NUM_THREADS=")
  message(FATAL_ERROR "rank 1 failing alone: status ${status}, ${times} errors: ${errors}${out}")
endif()

# Ranks given other splits (a split one rank alone refuses, or two that differ) fail
# together: a rank that goes on alone would wait in MPI for ever.
foreach(case "3x3;do not make a job of" "1x${RANKS};the ranks were given other splits")
  list(GET case 0 split)
  list(GET case 1 expected)
  set(rank_1_other "if [ ${rank} = 1 ]; then exec \"\$0\" \"\$@\" --ranks ${split}; fi; exec \"\$0\" \"\$@\" --ranks ${RANKS}x1")
  execute_process(COMMAND ${MPIEXEC} -n ${RANKS} --oversubscribe --bind-to none
                          sh -c "${rank_1_other}" ${CLI} run --scene double-slit-small --steps 4
                          --output other
                  WORKING_DIRECTORY ${WORK} RESULT_VARIABLE status ERROR_VARIABLE errors
                  OUTPUT_VARIABLE out TIMEOUT 120)
  string(REGEX MATCHALL "wave2d: error:" said "${errors}")
  list(LENGTH said times)
  if(NOT status EQUAL 2 OR NOT times EQUAL 1 OR NOT errors MATCHES "rank 1: .*${expected}")
    message(FATAL_ERROR "rank 1 given --ranks ${split}: status ${status}, ${times} errors: "
                        "${errors}${out}")
  endif()
endforeach()

# Ranks given other runs (here another step count) fail together too, at once.
set(rank_1_other "if [ ${rank} = 1 ]; then exec \"\$0\" \"\$@\" --steps 5; fi; exec \"\$0\" \"\$@\" --steps 4")
execute_process(COMMAND ${MPIEXEC} -n ${RANKS} --oversubscribe --bind-to none
                        sh -c "${rank_1_other}" ${CLI} run --scene double-slit-small
                        --ranks ${RANKS}x1 --output other
                WORKING_DIRECTORY ${WORK} RESULT_VARIABLE status ERROR_VARIABLE errors
                OUTPUT_VARIABLE out TIMEOUT 120)
string(REGEX MATCHALL "wave2d: error:" said "${errors}")
list(LENGTH said times)
if(NOT status EQUAL 2 OR NOT times EQUAL 1 OR
   NOT errors MATCHES "rank 1: the ranks were given other runs: rank 0 [^\n]* 4 steps, [^\n]*this rank [^\n]* 5 steps")
  message(FATAL_ERROR "rank 1 given --steps 5: status ${status}, ${times} errors: ${errors}${out}")
endif()
if(EXISTS ${WORK}/other)
  message(FATAL_ERROR "ranks given other runs left their output folder")
endif()

# Ranks that share the cores unbound take a share each, unless a thread count is given (on
# OpenMP; Serial has one thread).
execute_process(COMMAND ${CMAKE_COMMAND} -E env --unset=OMP_NUM_THREADS --unset=OMP_THREAD_LIMIT
                        nproc OUTPUT_VARIABLE usable OUTPUT_STRIP_TRAILING_WHITESPACE)
cmake_host_system_information(RESULT online QUERY NUMBER_OF_LOGICAL_CORES)
math(EXPR share "${usable} / ${RANKS}")
if(share LESS 1)
  set(share 1)
endif()
if(share EQUAL 1)
  set(share "1 thread")
else()
  set(share "${share} threads")
endif()
foreach(threads "" 2)
  if(threads)
    set(ENV{OMP_NUM_THREADS} ${threads})
    set(expected "${threads} threads")
  else()
    unset(ENV{OMP_NUM_THREADS})
    set(expected "${share}")
  endif()
  execute_process(COMMAND ${MPIEXEC} -n ${RANKS} --oversubscribe --bind-to none
                          ${CLI} run --scene double-slit-small --steps 2 --output share
                  WORKING_DIRECTORY ${WORK} RESULT_VARIABLE status ERROR_VARIABLE errors
                  OUTPUT_VARIABLE out)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "threads per rank (OMP_NUM_THREADS=${threads}): status ${status}: ${errors}")
  endif()
  if(out MATCHES "space +OpenMP" AND usable EQUAL online AND
     NOT out MATCHES "space +OpenMP \\(${expected}\\)")
    message(FATAL_ERROR "threads per rank (OMP_NUM_THREADS=${threads}): expected OpenMP "
                        "(${expected}) on ${usable} cores:\n${out}")
  endif()
endforeach()
set(ENV{OMP_NUM_THREADS} 1)
