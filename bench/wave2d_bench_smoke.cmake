# bench_smoke: every family of wave2d_bench on tiny cases, one repetition, then checks
# that the JSON parses and holds an error-free entry of each family, and the twin's.
# cmake -DBENCH=path/to/wave2d_bench -DOUT=smoke.json -P wave2d_bench_smoke.cmake
cmake_minimum_required(VERSION 3.22)

execute_process(
  COMMAND ${BENCH}
          --benchmark_filter=double-slit-small|/256/|_tuning/|copy
          --benchmark_repetitions=1 --benchmark_min_time=0.001
          --wave2d_max_size=256 --wave2d_steps=16 --wave2d_sweep_cell_steps=2^20
          --wave2d_copy_mib=8 --wave2d_tuning_scene=double-slit-small
          --wave2d_twin=kokkos-mdrange
          --benchmark_out=${OUT} --benchmark_out_format=json
  RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "wave2d_bench exited with ${status}")
endif()

file(READ ${OUT} json)
string(JSON count ERROR_VARIABLE error LENGTH "${json}" benchmarks)
if(error)
  message(FATAL_ERROR "${OUT}: not the JSON of Google Benchmark: ${error}")
endif()
set(families copy scene sweep mdrange_tuning tiled_tuning stream_tuning receivers)
set(seen "")
math(EXPR last "${count} - 1")
foreach(i RANGE ${last})
  string(JSON name GET "${json}" benchmarks ${i} name)
  string(JSON failed ERROR_VARIABLE no_error GET "${json}" benchmarks ${i} error_occurred)
  if(failed)
    string(JSON message GET "${json}" benchmarks ${i} error_message)
    message(FATAL_ERROR "${name} failed: ${message}")
  endif()
  string(REGEX REPLACE "/.*" "" family "${name}")
  list(APPEND seen ${family})
  if(name MATCHES "^(scene|sweep)/[^/]+/kokkos-mdrange-twin/")
    list(APPEND seen twin)
  endif()
endforeach()
if(NOT twin IN_LIST seen)
  message(FATAL_ERROR "${OUT}: no kokkos-mdrange-twin entry (--wave2d_twin)")
endif()
foreach(family IN LISTS families)
  if(NOT family IN_LIST seen)
    message(FATAL_ERROR "${OUT}: no ${family}/ entry")
  endif()
endforeach()
message(STATUS "bench_smoke: ${count} entries, families ${families} and the twin all present")
