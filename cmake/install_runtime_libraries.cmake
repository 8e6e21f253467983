# Install-time script (cmake/FtsPackaging.cmake): copies into FTS_LIB_DESTINATION every shared library the built
# executables load that Debian does not provide. The set is the binaries' own link closure, resolved as the
# dynamic loader resolves it from the build tree (their RUNPATH: the torch wheel's lib/ and nvidia/ folders,
# /usr/local/cuda), plus the libraries LibTorch dlopens (FTS_DLOPENED_GLOBS) and their own closure. A library in
# the system folders comes from a Debian package and becomes a Depends (dpkg-shlibdeps) instead; the NVIDIA
# driver's libcuda is the host's and is never bundled.
#
# LibTorch's own libraries (BSD-3-Clause) are stripped of their symbol tables (--strip-unneeded, as Debian strips
# libraries: 200 MB less); NVIDIA's are copied unmodified, as their license asks.
#
# In: FTS_EXECUTABLES (build-tree paths), FTS_DLOPENED_GLOBS, FTS_LIB_DESTINATION (with DESTDIR), FTS_TORCH_LIB_DIR,
#     FTS_STRIP (the strip program).
set(_system_dirs "^/(usr/)?lib(64|32)?/")
set(_dlopened)
foreach(_glob IN LISTS FTS_DLOPENED_GLOBS)
  file(GLOB _found "${_glob}")
  if(NOT _found)
    message(FATAL_ERROR "install: no library matches ${_glob} (LibTorch loads it at run time; is the torch wheel "
                        "the pinned CUDA build?)")
  endif()
  list(APPEND _dlopened ${_found})
endforeach()

file(GET_RUNTIME_DEPENDENCIES
  EXECUTABLES ${FTS_EXECUTABLES}
  LIBRARIES ${_dlopened}
  RESOLVED_DEPENDENCIES_VAR _resolved
  UNRESOLVED_DEPENDENCIES_VAR _unresolved
  CONFLICTING_DEPENDENCIES_PREFIX _conflict
  # The driver (libcuda) is the machine's own; linux-vdso and the loader are not files to copy.
  PRE_EXCLUDE_REGEXES "^libcuda\\.so" "^linux-vdso" "^ld-linux"
  POST_EXCLUDE_REGEXES "${_system_dirs}")

if(_unresolved)
  message(FATAL_ERROR "install: libraries the binaries need were not found: ${_unresolved}")
endif()
# The same soname in two places (libcudart.so.13 from the wheel and from /usr/local/cuda): the loader takes the
# first one it meets, which is the first in the binaries' RUNPATH order that GET_RUNTIME_DEPENDENCIES reports.
foreach(_name IN LISTS _conflict_FILENAMES)
  list(GET _conflict_${_name} 0 _first)
  message(STATUS "install: ${_name} found in ${_conflict_${_name}}; bundling ${_first}")
  list(APPEND _resolved "${_first}")
endforeach()

list(APPEND _resolved ${_dlopened})
list(REMOVE_DUPLICATES _resolved)
file(MAKE_DIRECTORY "${FTS_LIB_DESTINATION}")
set(_bytes 0)
foreach(_lib IN LISTS _resolved)
  get_filename_component(_name "${_lib}" NAME)
  get_filename_component(_real "${_lib}" REALPATH)
  # Under the name the loader asks for (the soname link's name), as a plain file: 0644, as Debian ships libraries.
  file(COPY_FILE "${_real}" "${FTS_LIB_DESTINATION}/${_name}" ONLY_IF_DIFFERENT)
  get_filename_component(_from "${_real}" DIRECTORY)
  if(_from STREQUAL FTS_TORCH_LIB_DIR)
    execute_process(COMMAND "${FTS_STRIP}" --strip-unneeded "${FTS_LIB_DESTINATION}/${_name}" RESULT_VARIABLE _rc)
    if(NOT _rc EQUAL 0)
      message(FATAL_ERROR "install: ${FTS_STRIP} --strip-unneeded ${FTS_LIB_DESTINATION}/${_name} failed")
    endif()
  endif()
  file(CHMOD "${FTS_LIB_DESTINATION}/${_name}" FILE_PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)
  file(SIZE "${FTS_LIB_DESTINATION}/${_name}" _size)
  math(EXPR _bytes "${_bytes} + ${_size} / 1024")
endforeach()
list(LENGTH _resolved _count)
math(EXPR _mib "${_bytes} / 1024")
message(STATUS "install: ${_count} bundled libraries (${_mib} MiB) in ${FTS_LIB_DESTINATION}")
