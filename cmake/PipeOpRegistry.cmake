# The op tables generated from the ODS records (utils/op-registry/generate.py
# over `llvm-tblgen --dump-json`): core/'s table of elementwise ops, which the
# runtime's host steps and the reference use, and the dialect's table of
# spellings, which the frontend uses. Only the build runs llvm-tblgen: the
# runtime includes the generated table, never MLIR or LLVM.
find_program(PIPE_LLVM_TBLGEN NAMES llvm-tblgen
             HINTS ${LLVM_TOOLS_BINARY_DIR} REQUIRED)
find_package(Python3 REQUIRED COMPONENTS Interpreter)

set(_pipe_td_includes)
foreach(dir IN LISTS MLIR_INCLUDE_DIRS)
  list(APPEND _pipe_td_includes -I ${dir})
endforeach()
file(GLOB _pipe_dialect_td CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/dialect/*.td)

set(PIPE_OPS_JSON ${PROJECT_BINARY_DIR}/dialect/PipeOps.json)
set(PIPE_CORE_OPS_INC ${PROJECT_BINARY_DIR}/core/PipeElementwiseOps.inc)
set(PIPE_DIALECT_SPELLINGS_INC ${PROJECT_BINARY_DIR}/dialect/PipeSpellings.inc)
add_custom_command(
  OUTPUT ${PIPE_OPS_JSON}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${PROJECT_BINARY_DIR}/dialect
  COMMAND ${PIPE_LLVM_TBLGEN} --dump-json ${_pipe_td_includes}
          -I ${PROJECT_SOURCE_DIR} ${PROJECT_SOURCE_DIR}/dialect/PipeOps.td
          -o ${PIPE_OPS_JSON}
  DEPENDS ${_pipe_dialect_td}
  COMMENT "Reading the ODS records of dialect/PipeOps.td")
add_custom_command(
  OUTPUT ${PIPE_CORE_OPS_INC} ${PIPE_DIALECT_SPELLINGS_INC}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${PROJECT_BINARY_DIR}/core
  COMMAND ${Python3_EXECUTABLE}
          ${PROJECT_SOURCE_DIR}/utils/op-registry/generate.py ${PIPE_OPS_JSON}
          --core ${PIPE_CORE_OPS_INC} --dialect ${PIPE_DIALECT_SPELLINGS_INC}
  DEPENDS ${PIPE_OPS_JSON} ${PROJECT_SOURCE_DIR}/utils/op-registry/generate.py
  COMMENT "Generating the op tables from the ODS records")
add_custom_target(PipeOpRegistryGen
  DEPENDS ${PIPE_CORE_OPS_INC} ${PIPE_DIALECT_SPELLINGS_INC})
