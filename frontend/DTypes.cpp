//===- DTypes.cpp - The language's dtypes and their rules ----------------===//
//
// The dtypes' names, classes and ranges, the promotion of two dtypes for a
// binary op, and the dtypes reductions give (docs/language.md). Sema.cpp
// checks programs with them.
//
//===----------------------------------------------------------------------===//

#include "frontend/Sema.h"

#include "llvm/ADT/STLExtras.h"

#include <cassert>
#include <cctype>
#include <cmath>
#include <limits>

using namespace pipec;

static const char *const kDTypes[] = {"bool", "u8",  "i8",   "u16", "i16",
                                      "u32",  "i32", "u64",  "i64", "f16",
                                      "bf16", "f32", "f64"};
llvm::ArrayRef<const char *> pipec::getDTypeNames() { return kDTypes; }
const char *pipec::getDTypeList() {
  return "bool u8 i8 u16 i16 u32 i32 u64 i64 f16 bf16 f32 f64";
}

bool pipec::isDType(llvm::StringRef name) {
  return llvm::is_contained(kDTypes, name);
}
bool pipec::isFloatDType(llvm::StringRef name) {
  return name == "f16" || name == "bf16" || name == "f32" || name == "f64";
}
bool pipec::isUnsignedDType(llvm::StringRef name) {
  return name.starts_with("u");
}
bool pipec::isIntegerDType(llvm::StringRef name) {
  return name.starts_with("u") || name.starts_with("i");
}
unsigned pipec::getDTypeBits(llvm::StringRef name) {
  if (name == "bool")
    return 1;
  unsigned bits = 0;
  name.drop_while([](char c) { return !isdigit(c); }).getAsInteger(10, bits);
  return bits;
}

std::pair<__int128, __int128> pipec::getIntegerRange(llvm::StringRef name) {
  assert(isIntegerDType(name) && name != "bool" && "not an integer dtype");
  unsigned bits = getDTypeBits(name);
  if (isUnsignedDType(name))
    return {0, (__int128(1) << bits) - 1};
  return {-(__int128(1) << (bits - 1)), (__int128(1) << (bits - 1)) - 1};
}

pipec::FloatRange pipec::getFloatRange(llvm::StringRef name) {
  assert(isFloatDType(name) && "not a float dtype");
  // The bound is the largest finite value plus half its ulp: 2^15 (2 -
  // 2^-11) for f16, 2^127 (2 - 2^-8) for bf16, 2^127 (2 - 2^-24) for f32.
  if (name == "f16")
    return {65504.0, 65520.0};
  if (name == "bf16")
    return {std::ldexp(2.0 - 0x1p-7, 127), std::ldexp(2.0 - 0x1p-8, 127)};
  if (name == "f32")
    return {std::ldexp(2.0 - 0x1p-23, 127), std::ldexp(2.0 - 0x1p-24, 127)};
  return {std::numeric_limits<double>::max(), INFINITY};
}

std::optional<std::string> pipec::promoteDTypes(llvm::StringRef a,
                                                llvm::StringRef b) {
  if (a == b)
    return a.str();
  if (a == "bool")
    return b.str();
  if (b == "bool")
    return a.str();
  bool fa = isFloatDType(a), fb = isFloatDType(b);
  if (fa && fb) {
    // f16 and bf16 hold different ranges and precisions: f32 holds both.
    if ((a == "f16" && b == "bf16") || (a == "bf16" && b == "f16"))
      return std::string("f32");
    return (getDTypeBits(a) >= getDTypeBits(b) ? a : b).str();
  }
  if (fa || fb) // A float with an integer: the float (as JAX does).
    return (fa ? a : b).str();
  unsigned ba = getDTypeBits(a), bb = getDTypeBits(b);
  bool ua = isUnsignedDType(a), ub = isUnsignedDType(b);
  if (ua == ub)
    return (ba >= bb ? a : b).str();
  // Signed with unsigned: the smallest signed dtype that holds both.
  unsigned signedBits = ua ? bb : ba, unsignedBits = ua ? ba : bb;
  if (signedBits > unsignedBits)
    return "i" + std::to_string(signedBits);
  if (unsignedBits < 64)
    return "i" + std::to_string(unsignedBits * 2);
  return std::nullopt;
}

bool pipec::isReductionCall(llvm::StringRef name, size_t numArgs) {
  if (name == "min" || name == "max")
    return numArgs == 1;
  return name == "sum" || name == "mean" || name == "prod" || name == "any" ||
         name == "all";
}

std::string pipec::getReductionDType(llvm::StringRef kind,
                                     llvm::StringRef dtype) {
  if (kind == "any" || kind == "all")
    return "bool";
  if (kind == "min" || kind == "max")
    return dtype.str();
  if (kind == "mean")
    return dtype == "f64" ? "f64" : "f32";
  if (isFloatDType(dtype))
    return dtype.str();
  return isUnsignedDType(dtype) ? "u64" : "i64";
}
