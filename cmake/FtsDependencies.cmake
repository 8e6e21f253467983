# Finds every third-party dependency once: LibTorch from the pinned PyPI wheel, Debian's libraries,
# and Qt (GUI, or only Qt Test for headless test builds).
find_package(Threads REQUIRED)
find_package(SQLite3 REQUIRED)
find_package(nlohmann_json 3.10 REQUIRED)
find_package(CLI11 REQUIRED)
find_package(PkgConfig REQUIRED)
pkg_check_modules(PCRE2 REQUIRED IMPORTED_TARGET libpcre2-8)
# ICU (uc): Unicode normalisation (NFC) and character properties for tokenizers (fts_data).
find_package(ICU REQUIRED COMPONENTS uc)

# LibTorch: the one inside the PyTorch wheel (torch.utils.cmake_prefix_path), never Debian's 1.13.
if(NOT Torch_DIR)
  if(NOT FTS_PYTHON)
    set(_venv "$ENV{FTS_VENV}")
    if(NOT _venv)
      if(DEFINED ENV{XDG_CACHE_HOME})
        set(_venv "$ENV{XDG_CACHE_HOME}/finetune-studio/venv")
      else()
        set(_venv "$ENV{HOME}/.cache/finetune-studio/venv")
      endif()
    endif()
    if(EXISTS "${_venv}/bin/python")
      set(FTS_PYTHON "${_venv}/bin/python" CACHE FILEPATH "Python with torch: where LibTorch is found, and the tests' Python peer")
    else()
      find_program(FTS_PYTHON NAMES python3 REQUIRED)
    endif()
  endif()
  execute_process(COMMAND "${FTS_PYTHON}" -c "import torch,sys;sys.stdout.write(torch.utils.cmake_prefix_path)"
                  OUTPUT_VARIABLE _torch_prefix RESULT_VARIABLE _torch_rc ERROR_QUIET)
  if(NOT _torch_rc EQUAL 0)
    message(FATAL_ERROR "LibTorch not found: ${FTS_PYTHON} cannot import torch. Run packaging/setup-debian.sh "
                        "(it installs the pinned torch wheel) or pass -DTorch_DIR=...")
  endif()
  list(APPEND CMAKE_PREFIX_PATH "${_torch_prefix}")
endif()
# The CUDA build of the wheel needs the CUDA toolkit's CMake bits at configure time (nvcc present here).
if(EXISTS /usr/local/cuda/bin/nvcc AND NOT CMAKE_CUDA_COMPILER)
  set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
  set(CUDAToolkit_ROOT /usr/local/cuda)
endif()
# Skip Caffe2's GPU-detection try_run (no GPU here; CMake 3.25 lacks CUDA20 flags for nvcc 13).
if(NOT TORCH_CUDA_ARCH_LIST)
  set(TORCH_CUDA_ARCH_LIST "9.0")
endif()
set(CMAKE_CUDA_STANDARD 17)
find_package(Torch REQUIRED)
message(STATUS "LibTorch ${Torch_VERSION} from ${Torch_DIR}")
# libtorch.so and libtorch_cpu.so carry and export their own copy of std::filesystem. Put the system
# libstdc++ first in every link (and so first in the runtime lookup order) so our std::filesystem calls
# bind to it; binding to LibTorch's copy crashed in fs::remove_all.
add_link_options("LINKER:--push-state,--no-as-needed" -lstdc++ "LINKER:--pop-state")
# The linker: mold when it is installed (setup-debian.sh installs it). GNU ld spent most of a build's link time on
# the ~30 programs that link the static core and LibTorch (docs/benchmarks.md, build time).
option(FTS_USE_MOLD "Link with mold when it is installed" ON)
if(FTS_USE_MOLD)
  find_program(FTS_MOLD NAMES mold ld.mold)
  if(FTS_MOLD)
    add_link_options(-fuse-ld=mold)
    message(STATUS "Linker: mold (${FTS_MOLD})")
  else()
    message(STATUS "Linker: the compiler's default (mold not found: apt install mold)")
  endif()
endif()
# Torch's CMake adds its flags globally through TORCH_CXX_FLAGS (the C++ ABI macro); keep them on our targets only.
separate_arguments(FTS_TORCH_CXX_FLAGS UNIX_COMMAND "${TORCH_CXX_FLAGS}")

if(FTS_WITH_CUDA STREQUAL "AUTO")
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    set(FTS_CUDA_ENABLED ON)
  else()
    set(FTS_CUDA_ENABLED OFF)
  endif()
else()
  set(FTS_CUDA_ENABLED ${FTS_WITH_CUDA})
endif()
# The kernels' GPU architectures (enable_language sets CMAKE_CUDA_ARCHITECTURES to nvcc's default, sm_75, so
# a variable of our own): sm_90 (H100/H200) as SASS plus compute_90 PTX.
set(FTS_CUDA_ARCHITECTURES "90" CACHE STRING "CUDA architectures of fts_kernels (CMake CUDA_ARCHITECTURES syntax)")
if(FTS_CUDA_ENABLED)
  set(CMAKE_CUDA_RUNTIME_LIBRARY Shared)
  enable_language(CUDA)
  find_package(CUDAToolkit REQUIRED)
endif()
message(STATUS "CUDA kernels: ${FTS_CUDA_ENABLED}")

set(_qt_components)
if(FTS_BUILD_GUI)
  list(APPEND _qt_components Core Gui Widgets PrintSupport LinguistTools)
endif()
if(FTS_BUILD_TESTS)
  list(APPEND _qt_components Core Test)
endif()
if(_qt_components)
  list(REMOVE_DUPLICATES _qt_components)
  find_package(Qt6 6.4 REQUIRED COMPONENTS ${_qt_components})
endif()
if(FTS_BUILD_TESTS)
  # Qt6::Test puts QT_TESTCASE_BUILDDIR and QT_TESTCASE_SOURCEDIR (the clone's absolute paths, for QFINDTESTDATA,
  # which no test uses: tests/support/test_paths.h finds paths at run time) on every test unit's command line, so no
  # test object could come from another clone's ccache. Only QT_TESTLIB_LIB is kept.
  set_property(TARGET Qt6::Test PROPERTY INTERFACE_COMPILE_DEFINITIONS QT_TESTLIB_LIB)
endif()
if(FTS_BUILD_GUI)
  find_path(QCUSTOMPLOT_INCLUDE_DIR qcustomplot.h REQUIRED)
  find_library(QCUSTOMPLOT_LIBRARY NAMES QCustomPlotQt6 qcustomplot-qt6 REQUIRED)
  add_library(QCustomPlot::QCustomPlot UNKNOWN IMPORTED)
  set_target_properties(QCustomPlot::QCustomPlot PROPERTIES IMPORTED_LOCATION "${QCUSTOMPLOT_LIBRARY}"
                        INTERFACE_INCLUDE_DIRECTORIES "${QCUSTOMPLOT_INCLUDE_DIR}"
                        INTERFACE_COMPILE_DEFINITIONS QCUSTOMPLOT_USE_LIBRARY)
  target_link_libraries(QCustomPlot::QCustomPlot INTERFACE Qt6::Widgets Qt6::PrintSupport)
endif()
