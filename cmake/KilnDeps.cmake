# Finds Kiln's dependencies and makes the tools self-contained: Debian's MLIR
# static libraries link the LLVM shared library through their CMake targets;
# we rewrite that interface to the static LLVMSupport/LLVMDemangle so kilnc and
# friends run unchanged on machines without LLVM installed.

find_package(Threads REQUIRED)

# CUDA toolkit (headers and NVRTC; libcuda is opened at run time).
set(KILN_CUDA_ROOT "/usr/local/cuda" CACHE PATH "CUDA toolkit root")
if(EXISTS "${KILN_CUDA_ROOT}/include/cuda.h")
  set(KILN_HAVE_CUDA_TOOLKIT ON)
  set(KILN_CUDA_INCLUDE "${KILN_CUDA_ROOT}/include")
else()
  set(KILN_HAVE_CUDA_TOOLKIT OFF)
  message(STATUS "Kiln: no CUDA toolkit at ${KILN_CUDA_ROOT}")
endif()

find_package(flatbuffers CONFIG QUIET)
find_program(KILN_FLATC flatc)

if(NOT KILN_ENABLE_COMPILER)
  return()
endif()

set(LLVM_DIR "/usr/lib/llvm-22/lib/cmake/llvm" CACHE PATH "")
set(MLIR_DIR "/usr/lib/llvm-22/lib/cmake/mlir" CACHE PATH "")
find_package(MLIR REQUIRED CONFIG)
message(STATUS "Kiln: MLIR ${LLVM_PACKAGE_VERSION} from ${MLIR_DIR}")

list(APPEND CMAKE_MODULE_PATH "${MLIR_CMAKE_DIR}" "${LLVM_CMAKE_DIR}")
include(TableGen)
include(AddLLVM)
include(AddMLIR)

# Static zlib/zstd instead of the shared ones named by LLVMSupport; z3 is only
# used by LLVM's SMT API, which Kiln never calls.
find_library(KILN_ZLIB_STATIC libz.a REQUIRED)
find_library(KILN_ZSTD_STATIC libzstd.a REQUIRED)
set_target_properties(LLVMSupport PROPERTIES INTERFACE_LINK_LIBRARIES
  "rt;dl;m;${KILN_ZLIB_STATIC};${KILN_ZSTD_STATIC};LLVMDemangle")

get_directory_property(_kiln_imported IMPORTED_TARGETS)
foreach(_t IN LISTS _kiln_imported)
  if(_t MATCHES "^MLIR")
    get_target_property(_libs ${_t} INTERFACE_LINK_LIBRARIES)
    if(_libs)
      if(_t STREQUAL "MLIRRemarkStreamer")
        list(TRANSFORM _libs REPLACE "^LLVM$" "LLVMRemarks;LLVMBitstreamReader;LLVMSupport")
      else()
        list(TRANSFORM _libs REPLACE "^LLVM$" "LLVMSupport")
      endif()
      set_target_properties(${_t} PROPERTIES INTERFACE_LINK_LIBRARIES "${_libs}")
    endif()
  endif()
endforeach()

include_directories(SYSTEM ${LLVM_INCLUDE_DIRS} ${MLIR_INCLUDE_DIRS})
add_definitions(${LLVM_DEFINITIONS})
if(NOT LLVM_ENABLE_RTTI)
  set(KILN_NO_RTTI_FLAG -fno-rtti)
endif()

# Protobuf, linked statically.
find_program(KILN_PROTOC protoc REQUIRED)
find_library(KILN_PROTOBUF_STATIC libprotobuf.a REQUIRED)
find_path(KILN_PROTOBUF_INCLUDE google/protobuf/message.h REQUIRED)

# Abseil (static archives from Debian).
find_package(absl CONFIG REQUIRED)

set(CMAKE_EXE_LINKER_FLAGS "${CMAKE_EXE_LINKER_FLAGS} -Wl,--as-needed")
