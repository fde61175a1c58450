# The `wave2d run` commands of README.md, as written, write the files README.md names.
#   cmake -DREADME=... -DSOURCE_DIR=... -DCLI=... -DWORK=... -DSCENE_FILES=ON|OFF -DPNG=ON|OFF
#         -P readme_commands.cmake
# Runs each indented `build/src/cli/wave2d run` line in WORK (the wave2d built here for
# build/src/cli/wave2d, paths under docs/ in the source tree), then checks that each `out/...`
# file named in backquotes exists (a scene file's run only where the build reads scene files).
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
file(READ ${README} text)

string(REGEX MATCHALL "\n    build/src/cli/wave2d run [^\n]*" commands "${text}")
if(NOT commands)
  message(FATAL_ERROR "${README} has no `build/src/cli/wave2d run` command")
endif()
foreach(command IN LISTS commands)
  string(STRIP "${command}" command)
  string(REGEX REPLACE " +#.*" "" command "${command}")
  # The 3201 x 3201 scenes run 12800 steps: minutes on this suite's cores.
  if(command MATCHES "--scene (double-slit|point-source|slit)( |$)")
    message("not run, a 3201 x 3201 scene: ${command}")
    continue()
  endif()
  # A scene file needs toml++; the files its run would write (named by the scene) go unchecked.
  if(NOT SCENE_FILES AND command MATCHES "--scene ([^ ]+\\.toml)( |$)")
    file(READ ${SOURCE_DIR}/${CMAKE_MATCH_1} scene)
    if(NOT scene MATCHES "\nname = \"([^\"]+)\"")
      message(FATAL_ERROR "${CMAKE_MATCH_1} names no scene")
    endif()
    string(REGEX REPLACE "[^A-Za-z0-9_.-]" "_" stem "${CMAKE_MATCH_1}")  # ASCII names only
    list(APPEND unwritten_stems ${stem})
    message("not run, this build reads no scene files (toml++ not found): ${command}")
    continue()
  endif()
  message("running: ${command}")
  separate_arguments(arguments UNIX_COMMAND "${command}")
  list(POP_FRONT arguments)
  list(TRANSFORM arguments REPLACE "^docs/" "${SOURCE_DIR}/docs/")
  execute_process(COMMAND ${CLI} ${arguments} WORKING_DIRECTORY ${WORK}
                  RESULT_VARIABLE status ERROR_VARIABLE errors)
  if(status)
    message(FATAL_ERROR "`${command}` failed (${status}): ${errors}")
  endif()
endforeach()

string(REGEX MATCHALL "`out/[A-Za-z0-9_.-]+`" named "${text}")
list(REMOVE_DUPLICATES named)
if(NOT named)
  message(FATAL_ERROR "${README} names no file under out/")
endif()
foreach(file IN LISTS named)
  string(REPLACE "`" "" file "${file}")
  string(REGEX REPLACE "^out/([^.]+).*" "\\1" stem "${file}")
  list(FIND unwritten_stems "${stem}" unwritten)
  if(unwritten GREATER -1)
    message("not checked, its command was not run: ${file}")
  elseif(file MATCHES "\\.png$" AND NOT PNG)
    message("not checked, a build without libpng: ${file}")
  elseif(NOT EXISTS ${WORK}/${file})
    file(GLOB written RELATIVE ${WORK} ${WORK}/out/*)
    message(FATAL_ERROR "${README} names ${file}, which its commands did not write "
                        "(they wrote: ${written})")
  else()
    message("written, as named: ${file}")
  endif()
endforeach()
