//===- CheckParams.h - What a check kernel's plan entry carries -*- C++ -*-===//
//
// Shared by the check family's compiler half (CheckFamily.cpp), its
// launcher (CheckLauncher.cpp) and the reference executor, which words its
// failures the same way.
//
//===----------------------------------------------------------------------===//

#ifndef PIPE_FAMILIES_CHECK_CHECKPARAMS_H
#define PIPE_FAMILIES_CHECK_CHECKPARAMS_H

#include "runtime/KernelParams.h"

#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <string>
#include <vector>

namespace pipert {

/// A check's device word for the first bad element of run r is
/// (r << kCheckIndexBits) | (kCheckIndexMask - index): its largest value
/// over a run is the run's lowest bad index. The guard word a failed check
/// raises is r << kCheckIndexBits (PIPE_GUARD_RUN_SHIFT in
/// codegen/PipeKernel.cuh, which a blur's bad window raises too).
constexpr int kCheckIndexBits = 40;
constexpr unsigned long long kCheckIndexMask = (1ull << kCheckIndexBits) - 1;

/// pipe.check_bounds: every element of the kernel's one input must lie in
/// [lo, hi] (dim expressions); else the run fails with `message`. With
/// several columns, element i has those of column i % columns (the input's
/// last dim).
struct CheckParams {
  struct Column {
    std::string lo, hi, message;
  };
  std::vector<Column> columns;
  /// The values are u64 (the report's value is their bits).
  bool unsigned64 = false;
  /// The values are floats (the report's value is their f64 bits); NaN is
  /// in no bounds.
  bool floating = false;

  std::string encode() const {
    KernelParamWriter writer;
    writer.add("columns", int64_t(columns.size()));
    writer.add("unsigned64", unsigned64);
    writer.add("floating", floating);
    for (size_t c = 0; c < columns.size(); ++c) {
      std::string k = std::to_string(c);
      writer.addText("lo" + k, columns[c].lo)
          .addText("hi" + k, columns[c].hi)
          .addText("message" + k, columns[c].message);
    }
    return writer.str();
  }
  static Result<CheckParams> decode(const std::string &text) {
    auto reader = KernelParamReader::parse("check", text);
    if (!reader)
      return reader.status();
    CheckParams params;
    int64_t count = reader->getInt("columns");
    params.unsigned64 = reader->getInt("unsigned64") != 0;
    params.floating = reader->getInt("floating") != 0;
    for (int64_t c = 0; c < count && c < 64; ++c) {
      std::string k = std::to_string(c);
      params.columns.push_back({reader->getText("lo" + k),
                                reader->getText("hi" + k),
                                reader->getText("message" + k)});
    }
    if (!reader->status().ok())
      return reader->status();
    if (params.columns.empty() || count > 64)
      return Status::error("a check kernel has " + std::to_string(count) +
                           " columns of bounds");
    return params;
  }
};

/// A checked float as a message shows it: the shortest of %g's forms that
/// reads back as the same f32 or f64 (nan, inf, -inf as such).
inline std::string formatCheckFloat(double value) {
  // (A NaN's sign bit is no part of its value: "-nan" reads as a typo.)
  if (std::isnan(value))
    return "nan";
  char text[40];
  for (int digits = 6; digits <= 17; ++digits) {
    std::snprintf(text, sizeof(text), "%.*g", digits, value);
    double back = std::strtod(text, nullptr);
    if (back == value || float(back) == float(value) || value != value)
      break;
  }
  return text;
}

/// What follows a range that holds no value in a check's message.
inline constexpr const char *kEmptyRangeNote =
    " (an empty range: no value passes)";

/// `message` with {at} (the bad element's coordinates), {value} (as
/// text: a u64 may exceed every long long), {lo} and {hi} filled in.
inline std::string formatCheckMessage(std::string message,
                                      const std::string &at,
                                      const std::string &value, int64_t lo,
                                      int64_t hi) {
  // A scalar parameter has no coordinates: it is every sample's.
  if (at == "[]")
    for (auto [phrase, text] : {std::pair<std::string, std::string>{
                                    " of sample {at}", " (every sample's)"},
                                {" of element {at}", ""}})
      if (size_t where = message.find(phrase); where != std::string::npos)
        message.replace(where, phrase.size(), text);
  for (auto [key, text] :
       {std::pair<std::string, std::string>{"{at}", at},
        {"{value}", value},
        {"{lo}", std::to_string(lo)},
        {"{hi}", std::to_string(hi)}})
    for (size_t at = message.find(key); at != std::string::npos;
         at = message.find(key, at + text.size()))
      message.replace(at, key.size(), text);
  // A range with nothing in it ([0, -1] of an empty dim) says so.
  if (lo > hi) {
    std::string range =
        "[" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
    if (size_t at = message.find(range); at != std::string::npos)
      message.insert(at + range.size(), kEmptyRangeNote);
  }
  return message;
}

} // namespace pipert

#endif // PIPE_FAMILIES_CHECK_CHECKPARAMS_H
