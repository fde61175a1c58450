cmake_minimum_required(VERSION 3.22)
# The folders' declared order (docs/library.md draws it), lowest first. A file includes
# headers of its own folder and of folders in lower layers only: nothing of a layer above
# it, nor of another folder of its own layer (the kernels' folders stand side by side, and
# so do the two applications).
#   cmake -DROOT=<source dir> -P layering.cmake
set(layers
  "core detail"            # the cell rule, windows, processes, errors; Kokkos compatibility
  "scene"                  # scenes and built-in scenes
  "io"                     # files in and out
  "backend"                # what a backend implements
  "reference kokkos cuda"  # the backends
  "plan"                   # the registry of backends and auto's planner
  "simulation"             # Simulation
  "distributed"            # DistributedSimulation over MPI
  "run"                    # experiments: outputs, checkpoints, resume, progress
  "cli python")            # the program and the Python module

# Where each folder's files are.
set(src ${ROOT}/src/wave2d)
set(where_cli ${ROOT}/src/cli)
set(where_python ${ROOT}/src/python)
set(where_kokkos ${ROOT}/kernels_kokkos/wave2d/kokkos)
set(where_cuda ${ROOT}/kernels_cuda)

set(errors "")
set(checked 0)
set(level 0)
foreach(layer IN LISTS layers)
  string(REPLACE " " ";" folders "${layer}")
  foreach(folder IN LISTS folders)
    set(level_${folder} ${level})
  endforeach()
  math(EXPR level "${level} + 1")
endforeach()

foreach(layer IN LISTS layers)
  string(REPLACE " " ";" folders "${layer}")
  foreach(folder IN LISTS folders)
    if(DEFINED where_${folder})
      set(root ${where_${folder}})
    else()
      set(root ${src}/${folder})
    endif()
    if(NOT IS_DIRECTORY ${root})
      list(APPEND errors "no folder ${root} for the layer ${folder}")
      continue()
    endif()
    file(GLOB_RECURSE files ${root}/*.hpp ${root}/*.cpp ${root}/*.cuh ${root}/*.cu)
    foreach(file IN LISTS files)
      math(EXPR checked "${checked} + 1")
      file(STRINGS ${file} lines REGEX "^[ \t]*#[ \t]*include[ \t]*[<\"](wave2d/[a-z_]+/|cli/|python/)")
      foreach(line IN LISTS lines)
        string(REGEX MATCH "[<\"](wave2d/([a-z_]+)/|(cli)/|(python)/)" unused "${line}")
        set(included "${CMAKE_MATCH_2}${CMAKE_MATCH_3}${CMAKE_MATCH_4}")
        if(included STREQUAL folder)
          continue()
        endif()
        file(RELATIVE_PATH name ${ROOT} ${file})
        if(NOT DEFINED level_${included})
          list(APPEND errors "${name}: ${line} (a folder of no declared layer)")
        elseif(level_${included} GREATER_EQUAL level_${folder})
          list(APPEND errors "${name}: ${line} (${folder} may not include ${included})")
        endif()
      endforeach()
    endforeach()
  endforeach()
endforeach()
if(errors)
  list(JOIN errors "\n  " text)
  message(FATAL_ERROR "includes against the folders' order:\n  ${text}")
endif()
string(REPLACE ";" " < " order "${layers}")
message("${checked} files: every include follows the order ${order}")
