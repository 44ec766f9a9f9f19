# pipe_link_mlir_statically(): after find_package(MLIR), makes every MLIR
# target of the calling directory link LLVM's static component libraries.
# Debian builds LLVM with LLVM_LINK_LLVM_DYLIB, so MLIR's exported targets
# name the shared `LLVM` library; a pipec linked that way would need
# libLLVM-22.so on every machine it runs on. Those references are rewritten
# to `pipe_llvm_static`, an interface target over the static archives.
# Pipe's build (PipeMLIR.cmake) and its installed package (PipeConfig.cmake,
# the `compiler` component) both call it.
function(pipe_link_mlir_statically)
  find_package(ZLIB REQUIRED)
  find_library(PIPE_ZSTD_LIB NAMES libzstd.a zstd REQUIRED)
  if(NOT TARGET pipe_llvm_static)
    add_library(pipe_llvm_static INTERFACE IMPORTED GLOBAL)
    set(libs)
    foreach(component Remarks BitstreamReader Support Demangle)
      list(APPEND libs "${LLVM_LIBRARY_DIR}/libLLVM${component}.a")
    endforeach()
    list(APPEND libs ${PIPE_ZSTD_LIB} ZLIB::ZLIB pthread rt dl m)
    set_target_properties(pipe_llvm_static PROPERTIES
      INTERFACE_LINK_LIBRARIES "${libs}")
  endif()
  get_property(imported DIRECTORY PROPERTY IMPORTED_TARGETS)
  foreach(target IN LISTS imported)
    if(NOT target MATCHES "^MLIR")
      continue()
    endif()
    get_target_property(libs ${target} INTERFACE_LINK_LIBRARIES)
    if(NOT libs)
      continue()
    endif()
    list(TRANSFORM libs REPLACE "^LLVM$" "pipe_llvm_static")
    list(TRANSFORM libs REPLACE "^\\$<LINK_ONLY:LLVM>$" "$<LINK_ONLY:pipe_llvm_static>")
    set_target_properties(${target} PROPERTIES INTERFACE_LINK_LIBRARIES "${libs}")
  endforeach()
endfunction()
