# Writes OUTPUT, a header that defines WAVE2D_GIT_DESCRIBE for the benchmark's context:
# FIXED when given, else `git describe` of SOURCE_DIR at build time (a build directory
# configured long ago must not report the commit it was configured at), else "unknown".
# The header is rewritten only when its text changes, so a rebuild of the same state
# compiles nothing.
if(FIXED)
  set(describe "${FIXED}")
else()
  set(describe "unknown")
  if(GIT)
    execute_process(
      COMMAND "${GIT}" -C "${SOURCE_DIR}" describe --always --dirty --abbrev=12
      OUTPUT_VARIABLE found OUTPUT_STRIP_TRAILING_WHITESPACE
      RESULT_VARIABLE result ERROR_QUIET)
    if(result EQUAL 0)
      set(describe "${found}")
    endif()
  endif()
endif()
set(text "#define WAVE2D_GIT_DESCRIBE \"${describe}\"\n")
set(old "")
if(EXISTS "${OUTPUT}")
  file(READ "${OUTPUT}" old)
endif()
if(NOT old STREQUAL text)
  file(WRITE "${OUTPUT}" "${text}")
endif()
