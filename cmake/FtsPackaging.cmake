# The install layout and the .deb (CPack; `cmake --build build --target package`, docs/packaging.md).
#
#   /opt/finetune-studio/bin/{fts,finetune-studio}       RUNPATH $ORIGIN/../lib: no LD_LIBRARY_PATH needed
#   /opt/finetune-studio/lib/                            LibTorch and every library the binaries link that Debian
#                                                        does not ship (found at install time from the built
#                                                        binaries' own link closure), plus the ones LibTorch dlopens
#   /opt/finetune-studio/share/finetune-studio/resources the quick-start (the studio looks beside its binary)
#   /usr/bin/{fts,finetune-studio}                       symlinks into /opt
#   /usr/share/{applications,metainfo,icons/hicolor,man/man1,bash-completion,doc/finetune-studio,lintian/overrides}
#
# The package's Depends come from dpkg-shlibdeps over the binaries and the bundled libraries (Qt 6, QCustomPlot,
# SQLite, ICU, ...), plus what is loaded at run time and so invisible to it (the Qt platform plugins).
set(FTS_INSTALL_ROOT /opt/finetune-studio)
set(FTS_PACKAGE_NAME finetune-studio)
set(FTS_APP_ID io.github.finetunestudio.FinetuneStudio)

set_target_properties(fts PROPERTIES INSTALL_RPATH "$ORIGIN/../lib")
install(TARGETS fts RUNTIME DESTINATION ${FTS_INSTALL_ROOT}/bin)
set(_fts_executables $<TARGET_FILE:fts>)
if(FTS_BUILD_GUI)
  set_target_properties(finetune-studio PROPERTIES INSTALL_RPATH "$ORIGIN/../lib")
  install(TARGETS finetune-studio RUNTIME DESTINATION ${FTS_INSTALL_ROOT}/bin)
  list(APPEND _fts_executables $<TARGET_FILE:finetune-studio>)
endif()

# Libraries LibTorch loads with dlopen (so no link line names them): cuDNN's engine libraries (libcudnn.so.9 loads
# them from its own folder), NVRTC and its builtins with LibTorch's NVRTC shim (kernels compiled at run time).
# Not bundled, and said in docs/packaging.md: libtorch_cuda_linalg (cuSOLVER: linear-algebra solvers the engine
# never calls) and NVSHMEM's bootstrap and transport plugins (symmetric memory, unused).
get_filename_component(_torch_lib_dir "${TORCH_LIBRARY}" DIRECTORY)
get_filename_component(_torch_lib_real "${_torch_lib_dir}" REALPATH)
set(_fts_dlopened_globs
  "${_torch_lib_dir}/libcaffe2_nvrtc.so"
  "${_torch_lib_dir}/../../nvidia/cudnn/lib/libcudnn_*.so.9"
  "${_torch_lib_dir}/../../nvidia/cu13/lib/libnvrtc.so.*"
  "${_torch_lib_dir}/../../nvidia/cu13/lib/libnvrtc-builtins.so.*")
install(CODE "
  set(FTS_EXECUTABLES \"${_fts_executables}\")
  set(FTS_DLOPENED_GLOBS \"${_fts_dlopened_globs}\")
  set(FTS_LIB_DESTINATION \"\$ENV{DESTDIR}${FTS_INSTALL_ROOT}/lib\")
  set(FTS_TORCH_LIB_DIR \"${_torch_lib_real}\")
  set(FTS_STRIP \"${CMAKE_STRIP}\")
  include(\"${PROJECT_SOURCE_DIR}/cmake/install_runtime_libraries.cmake\")")

install(DIRECTORY ${PROJECT_SOURCE_DIR}/resources/quickstart DESTINATION ${FTS_INSTALL_ROOT}/share/finetune-studio/resources
        PATTERN "make_quickstart.py" EXCLUDE PATTERN "__pycache__" EXCLUDE)

# Commands on the PATH: relative symlinks would cross top-level folders (Debian policy 10.5 wants them absolute).
install(CODE "
  file(MAKE_DIRECTORY \"\$ENV{DESTDIR}/usr/bin\")
  foreach(_exe fts$<$<BOOL:${FTS_BUILD_GUI}>:;finetune-studio>)
    file(CREATE_LINK \"${FTS_INSTALL_ROOT}/bin/\${_exe}\" \"\$ENV{DESTDIR}/usr/bin/\${_exe}\" SYMBOLIC)
  endforeach()")

# Manual pages (gzip -9n, as Debian ships them), bash completion, documentation, copyright and changelog.
set(_fts_man_sources ${PROJECT_BINARY_DIR}/share/man/man1/fts.1)
if(FTS_BUILD_GUI)
  list(APPEND _fts_man_sources ${PROJECT_SOURCE_DIR}/packaging/linux/finetune-studio.1)
endif()
install(CODE "
  file(MAKE_DIRECTORY \"\$ENV{DESTDIR}/usr/share/man/man1\")
  foreach(_page ${_fts_man_sources})
    get_filename_component(_name \"\${_page}\" NAME)
    execute_process(COMMAND gzip -9nc \"\${_page}\" OUTPUT_FILE \"\$ENV{DESTDIR}/usr/share/man/man1/\${_name}.gz\"
                    RESULT_VARIABLE _rc)
    if(NOT _rc EQUAL 0)
      message(FATAL_ERROR \"gzip \${_page} failed\")
    endif()
  endforeach()
  file(MAKE_DIRECTORY \"\$ENV{DESTDIR}/usr/share/doc/${FTS_PACKAGE_NAME}\")
  execute_process(COMMAND gzip -9nc \"${PROJECT_SOURCE_DIR}/packaging/linux/changelog\"
                  OUTPUT_FILE \"\$ENV{DESTDIR}/usr/share/doc/${FTS_PACKAGE_NAME}/changelog.gz\")")
install(FILES ${PROJECT_BINARY_DIR}/share/bash-completion/completions/fts DESTINATION /usr/share/bash-completion/completions)
install(FILES ${PROJECT_SOURCE_DIR}/packaging/linux/copyright ${PROJECT_SOURCE_DIR}/README.md
        DESTINATION /usr/share/doc/${FTS_PACKAGE_NAME})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION /usr/share/doc/${FTS_PACKAGE_NAME}/docs)
# The license text of each bundled wheel (torch, nvidia-*), beside the copyright file that points to them.
install(CODE "
  file(GLOB _dist_infos \"${_torch_lib_dir}/../../torch-*.dist-info\" \"${_torch_lib_dir}/../../nvidia_*.dist-info\")
  foreach(_d IN LISTS _dist_infos)
    get_filename_component(_wheel \"\${_d}\" NAME)
    string(REGEX REPLACE \"\\\\.dist-info$\" \"\" _wheel \"\${_wheel}\")
    file(GLOB _texts \"\${_d}/licenses/*\" \"\${_d}/License.txt\" \"\${_d}/LICENSE*\")
    if(_texts)
      file(INSTALL \${_texts} DESTINATION \"/usr/share/doc/${FTS_PACKAGE_NAME}/licenses/\${_wheel}\")
    endif()
  endforeach()")
install(FILES ${PROJECT_SOURCE_DIR}/packaging/linux/lintian-overrides DESTINATION /usr/share/lintian/overrides
        RENAME ${FTS_PACKAGE_NAME})

# Desktop integration: the menu entry, AppStream metainfo, and the icon (SVG, and PNGs at the hicolor sizes drawn
# from it at install time with rsvg-convert).
if(FTS_BUILD_GUI)
  install(FILES ${PROJECT_SOURCE_DIR}/packaging/linux/${FTS_APP_ID}.desktop DESTINATION /usr/share/applications)
  # The metainfo, with <screenshots> when FTS_SCREENSHOT_BASE_URL says where docs/screenshots/ is published.
  set(FTS_SCREENSHOT_BASE_URL "" CACHE STRING
      "https URL where docs/screenshots/*.png are published: the AppStream metainfo lists them as screenshots")
  if(NOT FTS_SCREENSHOT_BASE_URL)
    message(STATUS "AppStream metainfo without screenshots (set FTS_SCREENSHOT_BASE_URL to where docs/screenshots/ "
                   "is published)")
  endif()
  set(_metainfo ${PROJECT_BINARY_DIR}/share/metainfo/${FTS_APP_ID}.metainfo.xml)
  add_custom_command(OUTPUT ${_metainfo}
    COMMAND ${CMAKE_COMMAND} -DSOURCE=${PROJECT_SOURCE_DIR}/packaging/linux/${FTS_APP_ID}.metainfo.xml
            -DOUTPUT=${_metainfo} -DBASE_URL=${FTS_SCREENSHOT_BASE_URL} -P ${PROJECT_SOURCE_DIR}/cmake/metainfo_screenshots.cmake
    DEPENDS ${PROJECT_SOURCE_DIR}/packaging/linux/${FTS_APP_ID}.metainfo.xml ${PROJECT_SOURCE_DIR}/cmake/metainfo_screenshots.cmake
    COMMENT "AppStream metainfo" VERBATIM)
  add_custom_target(fts_metainfo ALL DEPENDS ${_metainfo})
  install(FILES ${_metainfo} DESTINATION /usr/share/metainfo)
  install(FILES ${PROJECT_SOURCE_DIR}/resources/icons/finetune-studio.svg
          DESTINATION /usr/share/icons/hicolor/scalable/apps RENAME ${FTS_APP_ID}.svg)
  install(CODE "
    find_program(_rsvg rsvg-convert)
    if(NOT _rsvg)
      message(FATAL_ERROR \"rsvg-convert not found: it draws the icon's PNG sizes (apt install librsvg2-bin, or \"
                          \"./packaging/setup-debian.sh --tests)\")
    endif()
    foreach(_size 16 22 24 32 48 64 128 256 512)
      set(_dir \"\$ENV{DESTDIR}/usr/share/icons/hicolor/\${_size}x\${_size}/apps\")
      file(MAKE_DIRECTORY \"\${_dir}\")
      execute_process(COMMAND \"\${_rsvg}\" -w \${_size} -h \${_size} \"${PROJECT_SOURCE_DIR}/resources/icons/finetune-studio.svg\"
                              -o \"\${_dir}/${FTS_APP_ID}.png\" RESULT_VARIABLE _rc)
      if(NOT _rc EQUAL 0)
        message(FATAL_ERROR \"rsvg-convert failed drawing the \${_size} px icon\")
      endif()
    endforeach()")
endif()

# CPack: one .deb, zstd on every core (xz at this size took minutes), Depends from dpkg-shlibdeps.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME ${FTS_PACKAGE_NAME})
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
# The Maintainer field: whoever builds and distributes the package should put their own address here.
set(FTS_PACKAGE_CONTACT "The Finetune Studio developers <finetune-studio@users.noreply.github.com>"
    CACHE STRING "The .deb's Maintainer field (name <address>)")
set(CPACK_PACKAGE_CONTACT "${FTS_PACKAGE_CONTACT}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "fine-tune language models on your own GPUs")
# The synopsis line is CPACK_PACKAGE_DESCRIPTION_SUMMARY; CPack puts it first.
string(CONCAT CPACK_DEBIAN_PACKAGE_DESCRIPTION
    "Finetune Studio fine-tunes Hugging Face language models (GPT-2, Llama, Mistral,\n"
    "Qwen2, BERT) on a workstation's GPUs or on GPU servers reached over SSH, with\n"
    "DeepSpeed's memory techniques (ZeRO stages 0-3, CPU and NVMe offload, mixed\n"
    "precision, LoRA) built in and no Python environment to set up.\n"
    ".\n"
    "It ships the desktop application finetune-studio and the command line fts,\n"
    "with LibTorch and the CUDA libraries it needs inside /opt/finetune-studio.\n"
    "GPUs need NVIDIA's driver for CUDA 13 (version 580 or newer).")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_COMPRESSION_TYPE zstd)
set(CPACK_THREADS 0)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# dpkg-shlibdeps must find every library a packaged ELF file names. LibTorch's NVRTC shim names the NVIDIA driver's
# libcuda.so.1, which belongs to the machine's driver, not to a package: an empty library with that soname, made
# here, lets it resolve the name without adding a dependency (the package cannot depend on a driver version).
set(_driver_stub_dir ${PROJECT_BINARY_DIR}/packaging/driver-soname)
if(NOT EXISTS ${_driver_stub_dir}/libcuda.so.1)
  file(MAKE_DIRECTORY ${_driver_stub_dir})
  file(WRITE ${_driver_stub_dir}/empty.c "")
  execute_process(COMMAND ${CMAKE_C_COMPILER} -shared -Wl,-soname,libcuda.so.1 -o ${_driver_stub_dir}/libcuda.so.1
                          ${_driver_stub_dir}/empty.c RESULT_VARIABLE _stub_rc)
  if(NOT _stub_rc EQUAL 0)
    message(WARNING "could not build ${_driver_stub_dir}/libcuda.so.1: the package target will fail in dpkg-shlibdeps")
  endif()
endif()
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS ${FTS_INSTALL_ROOT}/lib ${_driver_stub_dir})
if(FTS_BUILD_GUI)
  # Loaded at run time: the platform plugins (xcb, wayland); Qt's own Chinese strings; a CJK font for zh_CN.
  set(CPACK_DEBIAN_PACKAGE_DEPENDS "qt6-qpa-plugins")
  set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "qt6-translations-l10n, fonts-wqy-microhei | fonts-noto-cjk, openssh-client")
else()
  set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "openssh-client")
endif()
set(CPACK_STRIP_FILES ON)
# The bundled libraries come as they were built (stripped where NVIDIA and PyTorch strip them); ours are stripped.
set(CPACK_SET_DESTDIR ON)
set(CPACK_PACKAGING_INSTALL_PREFIX /)
include(CPack)
