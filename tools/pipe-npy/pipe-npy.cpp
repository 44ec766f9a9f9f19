//===- pipe-npy.cpp - Make and compare .npy files -------------------------===//
//
// A small tool for tests, examples and benchmarks; it links only the
// runtime.
//
//   pipe-npy random OUT.npy DTYPE D0,D1,... [--seed S] [--range LO,HI]
//                                                         uniform random data
//   pipe-npy compare A.npy B.npy [--tolerance T]          exit 0 if equal
//   pipe-npy show A.npy                                   dtype, shape, values
//
//===----------------------------------------------------------------------===//

#include "runtime/Npy.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>

using namespace pipert;

static int usage() {
  fprintf(stderr,
          "usage: pipe-npy random OUT.npy DTYPE D0,D1,... [--seed S] "
          "[--range LO,HI]\n"
          "       pipe-npy compare A.npy B.npy [--tolerance T]\n"
          "       pipe-npy show A.npy\n");
  return 2;
}

template <typename T> static double get(const HostTensor &t, int64_t i) {
  return double(t.as<T>()[i]);
}

static double elementAt(const HostTensor &t, int64_t i) {
  return visitDType(t.dtype(), [&](auto tag) {
    return get<decltype(tag)>(t, i);
  });
}

static int random(int argc, char **argv) {
  if (argc < 5)
    return usage();
  auto dtype = parseDType(argv[3]);
  if (!dtype) {
    fprintf(stderr, "pipe-npy: unknown dtype '%s'\n", argv[3]);
    return 2;
  }
  std::vector<int64_t> shape;
  for (char *p = argv[4]; *p;) {
    char *end;
    long long d = strtoll(p, &end, 10);
    if (end == p || d < 0) {
      fprintf(stderr, "pipe-npy: bad shape '%s'\n", argv[4]);
      return 2;
    }
    shape.push_back(d);
    p = *end == ',' ? end + 1 : end;
  }
  unsigned seed = 1;
  // Integers default to every value of the dtype, floats to [-4, 260).
  bool hasRange = false;
  double lo = -4, hi = 260;
  for (int i = 5; i + 1 < argc; ++i) {
    if (!strcmp(argv[i], "--seed"))
      seed = unsigned(atoi(argv[i + 1]));
    if (!strcmp(argv[i], "--range") &&
        sscanf(argv[i + 1], "%lf,%lf", &lo, &hi) == 2)
      hasRange = true;
  }
  HostTensor tensor(*dtype, shape);
  std::mt19937_64 rng(seed);
  visitDType(*dtype, [&](auto tag) {
    using T = decltype(tag);
    T *data = tensor.as<T>();
    for (int64_t i = 0; i < tensor.numElements(); ++i) {
      if constexpr (std::is_floating_point_v<T>)
        data[i] = T(std::uniform_real_distribution<double>(lo, hi)(rng));
      else if (hasRange)
        data[i] = T(int64_t(std::floor(
            std::uniform_real_distribution<double>(lo, hi + 1)(rng))));
      else
        data[i] = T(rng());
    }
  });
  Status s = writeNpy(argv[2], tensor);
  if (!s.ok()) {
    fprintf(stderr, "pipe-npy: %s\n", s.message().c_str());
    return 1;
  }
  return 0;
}

static int compare(int argc, char **argv) {
  if (argc < 4)
    return usage();
  double tolerance = 0;
  for (int i = 4; i + 1 < argc; ++i)
    if (!strcmp(argv[i], "--tolerance"))
      tolerance = atof(argv[i + 1]);
  auto a = readNpy(argv[2]), b = readNpy(argv[3]);
  if (!a || !b) {
    fprintf(stderr, "pipe-npy: %s\n",
            (!a ? a.status() : b.status()).message().c_str());
    return 2;
  }
  if (a->dtype() != b->dtype() || a->shape() != b->shape()) {
    printf("differ: %s vs %s\n", a->describe().c_str(), b->describe().c_str());
    return 1;
  }
  int64_t mismatches = 0, first = -1;
  double worst = 0;
  for (int64_t i = 0; i < a->numElements(); ++i) {
    double x = elementAt(*a, i), y = elementAt(*b, i);
    bool same = (std::isnan(x) && std::isnan(y)) || x == y ||
                std::fabs(x - y) <= tolerance;
    if (!same) {
      if (first < 0)
        first = i;
      ++mismatches;
      worst = std::fmax(worst, std::fabs(x - y));
    }
  }
  if (mismatches) {
    printf("differ: %lld of %lld elements (first at flat index %lld: %g vs "
           "%g; largest difference %g)\n",
           (long long)mismatches, (long long)a->numElements(),
           (long long)first, elementAt(*a, first), elementAt(*b, first), worst);
    return 1;
  }
  printf("equal: %s\n", a->describe().c_str());
  return 0;
}

static int show(int argc, char **argv) {
  if (argc < 3)
    return usage();
  auto a = readNpy(argv[2]);
  if (!a) {
    fprintf(stderr, "pipe-npy: %s\n", a.status().message().c_str());
    return 1;
  }
  printf("%s\n", a->describe().c_str());
  for (int64_t i = 0; i < a->numElements() && i < 64; ++i)
    printf("%s%g", i ? " " : "", elementAt(*a, i));
  printf("%s\n", a->numElements() > 64 ? " ..." : "");
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 2)
    return usage();
  std::string command = argv[1];
  if (command == "random")
    return random(argc, argv);
  if (command == "compare")
    return compare(argc, argv);
  if (command == "show")
    return show(argc, argv);
  return usage();
}
