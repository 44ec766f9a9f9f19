# Writes INPUT into OUTPUT as a C++ raw string constant named VARIABLE.
file(READ "${INPUT}" content)
file(WRITE "${OUTPUT}.tmp"
  "// Generated from ${INPUT}; do not edit.\n"
  "#pragma once\n"
  "static const char ${VARIABLE}[] = R\"pipe_embed(${content})pipe_embed\";\n")
file(COPY_FILE "${OUTPUT}.tmp" "${OUTPUT}" ONLY_IF_DIFFERENT)
