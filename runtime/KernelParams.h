//===- KernelParams.h - A kernel family's parameters, as text ---*- C++ -*-===//
//
// Each plan kernel carries its family's parameters (PlanKernel::params) as
// one string that the compiler writes and the family's launcher reads once,
// when the executable loads: `key=value;key=value;...`, values integers or
// comma-separated lists of them. Text, so that an AOT source and
// `pipec --emit=plan` show them as they are; the runtime never interprets a
// family's keys itself.
//
//===----------------------------------------------------------------------===//

#ifndef PIPE_RUNTIME_KERNELPARAMS_H
#define PIPE_RUNTIME_KERNELPARAMS_H

#include "runtime/Status.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace pipert {

class KernelParamWriter {
public:
  KernelParamWriter &add(const std::string &key, int64_t value);
  KernelParamWriter &add(const std::string &key,
                         const std::vector<int64_t> &values);
  /// Text, with '%', ';' and '=' escaped (as %25, %3B, %3D).
  KernelParamWriter &addText(const std::string &key, const std::string &text);
  const std::string &str() const { return text; }

private:
  std::string text;
};

class KernelParamReader {
public:
  /// Parses `text`; an error names the family and what is malformed.
  static Result<KernelParamReader> parse(const std::string &family,
                                         const std::string &text);
  /// The value of `key`; an error (in `status`, the first one kept) when it
  /// is missing or not an integer, then 0.
  int64_t getInt(const std::string &key);
  std::vector<int64_t> getInts(const std::string &key);
  std::string getText(const std::string &key);
  /// The first error of the reads so far, or ok.
  const Status &status() const { return status_; }

private:
  std::string family;
  std::map<std::string, std::string> values;
  Status status_;
};

} // namespace pipert

#endif // PIPE_RUNTIME_KERNELPARAMS_H
