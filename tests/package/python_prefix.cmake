# cmake --install BUILD into a prefix of one kind (CASE), then the module as that prefix's
# Python finds it, in a fresh process that sees nothing of the build.
#   cmake -DBUILD=... -DPYTHON=<the build's python3> -DSCRIPT=import_installed.py -DWORK=...
#         -DCASE=venv|plain|system [-DRUN_ENV=A=1,B=2] -P python_prefix.cmake
# venv: a virtual environment; its python3 -I (no PYTHONPATH) imports the module.
# plain: a prefix no Python searches; the install prints the PYTHONPATH that imports it.
# system: /usr/local and /usr, staged under DESTDIR: the module goes into a folder the prefix's
#   Python searches under it, and says nothing, unless that Python searches none.
# Each case: the package's wave2dPython.cmake names the module's folder. RUN_ENV: the
# environment of the imports (the sanitizers' runtime).
cmake_minimum_required(VERSION 3.22)  # IN_LIST
string(REPLACE "," ";" RUN_ENV "${RUN_ENV}")
file(REMOVE_RECURSE ${WORK})

# Installs into PREFIX (under DESTDIR where given); sets `said` to the PYTHONPATH the install
# printed, if any, and `folder` to the module's folder under PREFIX, as its package names it.
function(install_into prefix destdir)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env DESTDIR=${destdir}
                          ${CMAKE_COMMAND} --install ${BUILD} --prefix ${prefix}
                  RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(status)
    message(FATAL_ERROR "installing into ${prefix} failed:\n${out}")
  endif()
  set(said "")
  if(out MATCHES "wave2d: [^\n]*PYTHONPATH=([^ \n]+)")
    set(said ${CMAKE_MATCH_1})
  endif()
  file(GLOB_RECURSE config "${destdir}${prefix}/wave2dPython.cmake")
  include(${config})  # sets _wave2d_python_dir
  set(folder ${prefix}/${_wave2d_python_dir})
  file(GLOB module "${destdir}${folder}/wave2d.*")
  if(NOT module)
    message(FATAL_ERROR "no module in ${destdir}${folder}, which ${config} names:\n${out}")
  endif()
  message(STATUS "${prefix}: the module in ${folder}; the install said PYTHONPATH=${said}")
  set(said ${said} PARENT_SCOPE)
  set(folder ${folder} PARENT_SCOPE)
endfunction()

# Runs the import script with python FLAG: the module must come from FOLDER.
function(import python flag folder)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env ${RUN_ENV} ${ARGN} ${python} ${flag} ${SCRIPT}
                          ${folder}
                  RESULT_VARIABLE status)
  if(status)
    message(FATAL_ERROR "${python} ${flag} did not import the module from ${folder}")
  endif()
endfunction()

if(CASE STREQUAL "venv")
  set(venv ${WORK}/venv)
  execute_process(COMMAND ${PYTHON} -m venv --without-pip --system-site-packages ${venv}
                  RESULT_VARIABLE status)
  if(status)
    message(FATAL_ERROR "${PYTHON} -m venv failed")
  endif()
  install_into(${venv} "")
  if(said)
    message(FATAL_ERROR "the install said PYTHONPATH=${said}: its python3 should find it")
  endif()
  import(${venv}/bin/python3 -I ${folder})
elseif(CASE STREQUAL "plain")
  install_into(${WORK}/prefix "")
  if(NOT said STREQUAL folder)
    message(FATAL_ERROR "the install should say PYTHONPATH=${folder}, said \"${said}\"")
  endif()
  import(${PYTHON} -s ${folder} PYTHONPATH=${said})  # -s: no user site
else()
  foreach(prefix /usr/local /usr)
    string(REPLACE "/" "-" stage ${prefix})
    install_into(${prefix} ${WORK}/stage${stage})
    set(python ${PYTHON})
    if(EXISTS ${prefix}/bin/python3)
      set(python ${prefix}/bin/python3)
    endif()
    # The folders that Python searches under the prefix, where they exist or once they do.
    execute_process(
      COMMAND ${python} -I -c "import os, site, sys
prefix = os.path.realpath(sys.argv[1])
for folder in sys.path + site.getsitepackages():
    if os.path.realpath(folder).startswith(prefix + os.sep) and 'packages' in folder:
        print(os.path.realpath(folder))" ${prefix}
      OUTPUT_VARIABLE searched)
    string(REPLACE "\n" ";" searched "${searched}")
    file(REAL_PATH ${folder} real)  # where the folder exists here
    if(NOT said AND NOT real IN_LIST searched AND NOT folder IN_LIST searched)
      message(FATAL_ERROR "${python} does not search ${folder}, and the install said nothing")
    elseif(said AND searched)
      message(FATAL_ERROR "the install said PYTHONPATH=${said}, and ${python} searches ${searched}")
    endif()
  endforeach()
endif()
