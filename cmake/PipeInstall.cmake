# `cmake --install`: the runtime's libraries and headers, pipec, the C API
# (libpipe_c.so, and libpipe_c_runtime.a for AOT programs in C), a CMake
# package (find_package(Pipe CONFIG): Pipe::runtime, Pipe::c_runtime,
# Pipe::pipec)
# and a pkg-config file for the runtime. scripts/check-outside-build.sh
# builds examples/aot against the installed tree (a ctest test), so that
# this stays true.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(PIPE_INCLUDE_DEST ${CMAKE_INSTALL_INCLUDEDIR}/pipe)
install(TARGETS pipe_runtime pipe_core pipe_cuda_headers pipe_c_runtime
                pipe_images EXPORT PipeTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS pipec EXPORT PipeTargets
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS pipe_c LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
# The Python module, pure Python over libpipe_c.so (which it finds two
# folders up): PYTHONPATH=<prefix>/lib/python.
install(FILES ${PROJECT_SOURCE_DIR}/python/pipegpu/__init__.py
              ${PROJECT_SOURCE_DIR}/python/pipegpu/_arguments.py
              ${PROJECT_SOURCE_DIR}/python/pipegpu/_dlpack.py
              ${PROJECT_SOURCE_DIR}/python/pipegpu/_library.py
              ${PROJECT_SOURCE_DIR}/python/pipegpu/_tensor.py
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/python/pipegpu)
# The headers an AOT program reaches from runtime/Runtime.h, and the C API
# with DLPack's header.
foreach(dir core runtime)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/${dir}/ DESTINATION ${PIPE_INCLUDE_DEST}/${dir}
          FILES_MATCHING PATTERN "*.h")
endforeach()
install(DIRECTORY ${PROJECT_SOURCE_DIR}/families/ DESTINATION ${PIPE_INCLUDE_DEST}/families
        FILES_MATCHING PATTERN "*Params.h")
install(FILES ${PIPE_CORE_OPS_INC} DESTINATION ${PIPE_INCLUDE_DEST}/core)
install(FILES ${PROJECT_SOURCE_DIR}/capi/pipe_c.h DESTINATION ${PIPE_INCLUDE_DEST}/capi)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/third_party/dlpack/include/dlpack
        DESTINATION ${PIPE_INCLUDE_DEST})
install(EXPORT PipeTargets NAMESPACE Pipe::
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Pipe)
# The JIT compiler (the `compiler` component): its static libraries, whose
# link interface names MLIR's targets; PipeConfig.cmake finds MLIR and links
# it statically as Pipe's build does (PipeStaticLLVM.cmake).
install(TARGETS PipeFrontend PipeDialect PipePasses PipeCodegen PipeReference
                PipeCompiler
        EXPORT PipeCompilerTargets ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(EXPORT PipeCompilerTargets NAMESPACE Pipe::
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Pipe)
install(FILES ${PROJECT_SOURCE_DIR}/compiler/JitPipeline.h
        DESTINATION ${PIPE_INCLUDE_DEST}/compiler)
install(FILES ${PROJECT_SOURCE_DIR}/cmake/PipeStaticLLVM.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Pipe)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/PipeConfig.cmake.in
  ${PROJECT_BINARY_DIR}/PipeConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Pipe)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/PipeConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/PipeConfig.cmake
              ${PROJECT_BINARY_DIR}/PipeConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Pipe)
set(CMAKE_DL_LIBS_FLAG "")
if(CMAKE_DL_LIBS)
  set(CMAKE_DL_LIBS_FLAG "-l${CMAKE_DL_LIBS}")
endif()
# The prefix as seen from the .pc file ("../.." from lib/pkgconfig).
file(RELATIVE_PATH PIPE_PC_TO_PREFIX "/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/")
string(REGEX REPLACE "/$" "" PIPE_PC_TO_PREFIX "${PIPE_PC_TO_PREFIX}")
configure_file(${PROJECT_SOURCE_DIR}/cmake/pipe-runtime.pc.in
               ${PROJECT_BINARY_DIR}/pipe-runtime.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/pipe-runtime.pc
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
