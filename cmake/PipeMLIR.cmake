# Find MLIR 22 and make every MLIR target link LLVM's static component
# libraries. Debian builds LLVM with LLVM_LINK_LLVM_DYLIB, so MLIR's exported
# targets name the shared `LLVM` library; a pipec linked that way would need
# libLLVM-22.so on every machine it runs on. We rewrite those references to an
# interface target over the static archives instead.
# MLIR's package version file accepts only an exact version, so check the
# major version ourselves.
find_package(MLIR REQUIRED CONFIG HINTS /usr/lib/llvm-22/lib/cmake/mlir)
if(NOT LLVM_VERSION_MAJOR EQUAL 22)
  message(FATAL_ERROR "Pipe needs LLVM/MLIR 22, found ${LLVM_PACKAGE_VERSION} in ${MLIR_DIR}")
endif()
message(STATUS "Using MLIR ${LLVM_PACKAGE_VERSION} from ${MLIR_DIR}")

list(APPEND CMAKE_MODULE_PATH "${MLIR_CMAKE_DIR}" "${LLVM_CMAKE_DIR}")
include(TableGen)
include(AddLLVM)
include(AddMLIR)

include(PipeStaticLLVM)
pipe_link_mlir_statically()

include_directories(SYSTEM ${LLVM_INCLUDE_DIRS} ${MLIR_INCLUDE_DIRS})
add_definitions(${LLVM_DEFINITIONS})

# Compiler code follows LLVM: no RTTI, no exceptions.
set(PIPE_COMPILER_FLAGS -fno-rtti -fno-exceptions)

# pipe_add_compiler_library(name sources... LINK libs...)
function(pipe_add_compiler_library name)
  cmake_parse_arguments(ARG "" "" "LINK;DEPENDS" ${ARGN})
  add_library(${name} STATIC ${ARG_UNPARSED_ARGUMENTS})
  target_compile_options(${name} PRIVATE ${PIPE_COMPILER_FLAGS})
  target_include_directories(${name} PUBLIC
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}>
    $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}/pipe>)
  target_link_libraries(${name} PUBLIC ${ARG_LINK})
  if(ARG_DEPENDS)
    add_dependencies(${name} ${ARG_DEPENDS})
  endif()
endfunction()

# A static, stripped executable of the compiler.
function(pipe_add_compiler_tool name)
  cmake_parse_arguments(ARG "" "" "LINK" ${ARGN})
  add_executable(${name} ${ARG_UNPARSED_ARGUMENTS})
  target_compile_options(${name} PRIVATE ${PIPE_COMPILER_FLAGS})
  target_link_libraries(${name} PRIVATE ${ARG_LINK})
  if(NOT PIPE_SANITIZE)
    target_link_options(${name} PRIVATE -s)
  endif()
endfunction()
