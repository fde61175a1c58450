# Configures, builds and runs an application against the installed package in PREFIX only.
#   cmake -DPREFIX=... -DSOURCE=<project dir> | -DREADME=<README.md> -DWORK=...
#         -DKOKKOS_DIR=... -DCXX_COMPILER=... [-DCXX_FLAGS=...] [-DCOMPONENTS=a;b]
#         [-DCONFIGURE_ARGS=...] [-DEXPECT_ERROR=<regex>] [-DGPU=ON] -P run_downstream.cmake
# README: the project is the first ```cmake and ```cpp blocks of the file's section SECTION
# (default "Embed the library"), as CMakeLists.txt and main.cpp. EXPECT_ERROR: configuring
# must fail with an error matching it. GPU: a Kokkos with CUDA, whose application runs only
# where a GPU is. CXX_FLAGS (the sanitizers' flags of a sanitized build) go to compiling and
# linking. EXPECT_FILES: what the application must have written in WORK (comma-separated).
# NO_KERNELS: see below.
foreach(list COMPONENTS CONFIGURE_ARGS EXPECT_FILES)  # comma-separated
  string(REPLACE "," ";" ${list} "${${list}}")
endforeach()
file(REMOVE_RECURSE ${WORK})
if(README)
  if(NOT SECTION)
    set(SECTION "Embed the library")
  endif()
  file(READ ${README} text)
  string(FIND "${text}" "## ${SECTION}" start)
  if(start EQUAL -1)
    message(FATAL_ERROR "${README} has no \"${SECTION}\" section")
  endif()
  string(SUBSTRING "${text}" ${start} -1 text)
  foreach(pair "cmake;CMakeLists.txt" "cpp;main.cpp")
    list(GET pair 0 language)
    list(GET pair 1 name)
    string(REGEX MATCH "```${language}\n(.*)" block "${text}")
    string(FIND "${CMAKE_MATCH_1}" "```" stop)
    if(NOT block OR stop EQUAL -1)
      message(FATAL_ERROR "${README}: no ${language} block in \"${SECTION}\"")
    endif()
    string(SUBSTRING "${CMAKE_MATCH_1}" 0 ${stop} block)
    file(WRITE ${WORK}/source/${name} "${block}")
  endforeach()
  set(SOURCE ${WORK}/source)
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -S ${SOURCE} -B ${WORK}/build -G Ninja
                        -DCMAKE_BUILD_TYPE=Release
                        -DCMAKE_PREFIX_PATH=${PREFIX} -DKokkos_DIR=${KOKKOS_DIR}
                        -DCMAKE_CXX_COMPILER=${CXX_COMPILER}
                        "-DCMAKE_CXX_FLAGS=${CXX_FLAGS}" "-DCMAKE_EXE_LINKER_FLAGS=${CXX_FLAGS}"
                        "-DWAVE2D_COMPONENTS=${COMPONENTS}" ${CONFIGURE_ARGS}
                RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(EXPECT_ERROR)
  if(NOT status)
    message(FATAL_ERROR "configuring succeeded; expected an error matching: ${EXPECT_ERROR}")
  endif()
  # CMake wraps the message's lines: matched as one line.
  string(REGEX REPLACE "[ \n]+" " " err_line "${err}")
  if(NOT "${err_line}" MATCHES "${EXPECT_ERROR}")
    message(FATAL_ERROR "configuring failed, but not with an error matching: ${EXPECT_ERROR}")
  endif()
  message("configuring failed as expected")
  return()
endif()
if(status)
  message(FATAL_ERROR "configuring the application failed")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${WORK}/build RESULT_VARIABLE status)
if(status)
  message(FATAL_ERROR "building the application failed")
endif()
# NO_KERNELS: the library holds the instantiations (ETI), so main.cpp's object defines none
# of wave2d's kernels, steppers, planner or simulation's stepping: it compiled declarations.
if(NO_KERNELS)
  file(GLOB_RECURSE objects ${WORK}/build/CMakeFiles/*main.cpp.o)
  find_program(NM nm REQUIRED)
  execute_process(COMMAND ${NM} -C --defined-only ${objects} OUTPUT_VARIABLE symbols
                  RESULT_VARIABLE status)
  if(status OR NOT objects)
    message(FATAL_ERROR "nm could not read main.cpp's object (${objects})")
  endif()
  string(REGEX MATCHALL
         "[^\n]*(Kokkos::Impl::[^\n]*wave2d|wave2d::(kokkos|cuda|reference)::|wave2d::FiniteCheck<|wave2d::backends<|wave2d::detail::run_trial|wave2d::Simulation<[^>]*>::(advance|Simulation)\\()[^\n]*"
         compiled "${symbols}")
  list(LENGTH compiled count)
  if(count GREATER 0)
    list(GET compiled 0 first)
    message(FATAL_ERROR "main.cpp compiled ${count} of wave2d's instantiations, e.g. ${first}")
  endif()
  message("main.cpp's object defines no kernel of wave2d's")
endif()
file(GLOB executables LIST_DIRECTORIES false ${WORK}/build/downstream ${WORK}/build/app)
if(NOT executables)
  return()  # a project of objects only (the headers)
endif()
if(GPU)
  execute_process(COMMAND nvidia-smi -L RESULT_VARIABLE no_gpu OUTPUT_QUIET ERROR_QUIET)
  if(no_gpu)
    message("SKIPPED: built; not run: no GPU here (nvidia-smi -L failed)")
    return()
  endif()
endif()
execute_process(COMMAND ${executables} WORKING_DIRECTORY ${WORK} RESULT_VARIABLE status)
if(status)
  message(FATAL_ERROR "the application failed")
endif()
foreach(file IN LISTS EXPECT_FILES)
  if(NOT EXISTS ${WORK}/${file})
    message(FATAL_ERROR "the application wrote no ${file}")
  endif()
endforeach()
