//===- aot_example.cpp - A program built from pipec's AOT output ----------===//
//
// The ahead-of-time way in: CMake runs `pipec --emit=aot` on
// examples/scale.pipe, and this program calls the generated, typed entry
// point. It links only the Pipe runtime: no MLIR, no LLVM.
//
//   aot_example IMAGES.npy GAIN.npy OUTDIR   writes OUTDIR/unit.npy, out.npy
//
//===----------------------------------------------------------------------===//

#include "scale.h"

#include <cstdio>

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: aot_example IMAGES.npy GAIN.npy OUTDIR\n");
    return 2;
  }
  auto images = pipert::readNpy(argv[1]);
  auto gain = pipert::readNpy(argv[2]);
  if (!images || !gain) {
    fprintf(stderr, "aot_example: %s\n",
            (!images ? images.status() : gain.status()).message().c_str());
    return 1;
  }
  pipert::HostTensor unit(pipert::DType::F32, images->shape());
  pipert::HostTensor out(pipert::DType::U8, images->shape());
  pipert::Status status = pipe_generated::scale(images->ref(), gain->ref(),
                                                unit.ref(), out.ref());
  if (!status.ok()) {
    fprintf(stderr, "aot_example: %s\n", status.message().c_str());
    return 1;
  }
  std::string dir = argv[3];
  for (auto [name, tensor] : {std::pair<const char *, pipert::HostTensor *>{
                                  "unit", &unit},
                              {"out", &out}}) {
    if (pipert::Status s = pipert::writeNpy(dir + "/" + name + ".npy", *tensor);
        !s.ok()) {
      fprintf(stderr, "aot_example: %s\n", s.message().c_str());
      return 1;
    }
  }
  printf("aot_example: scale on %s done on the GPU\n",
         images->describe().c_str());
  return 0;
}
