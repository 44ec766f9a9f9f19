//===- KernelParams.cpp - A kernel family's parameters, as text -----------===//

#include "runtime/KernelParams.h"

#include <cerrno>
#include <cstdlib>

using namespace pipert;

KernelParamWriter &KernelParamWriter::add(const std::string &key,
                                          int64_t value) {
  text += key + "=" + std::to_string(value) + ";";
  return *this;
}

KernelParamWriter &KernelParamWriter::add(const std::string &key,
                                          const std::vector<int64_t> &values) {
  text += key + "=";
  for (size_t i = 0; i < values.size(); ++i)
    text += (i ? "," : "") + std::to_string(values[i]);
  text += ";";
  return *this;
}

KernelParamWriter &KernelParamWriter::addText(const std::string &key,
                                              const std::string &value) {
  text += key + "=";
  for (char c : value) {
    if (c == '%')
      text += "%25";
    else if (c == ';')
      text += "%3B";
    else if (c == '=')
      text += "%3D";
    else
      text += c;
  }
  text += ";";
  return *this;
}

std::string KernelParamReader::getText(const std::string &key) {
  auto it = values.find(key);
  if (it == values.end()) {
    if (status_.ok())
      status_ = Status::error("the parameters of a '" + family +
                              "' kernel have no text '" + key + "'");
    return "";
  }
  std::string text;
  const std::string &raw = it->second;
  for (size_t i = 0; i < raw.size(); ++i) {
    if (raw[i] == '%' && i + 2 < raw.size()) {
      std::string code = raw.substr(i + 1, 2);
      text += code == "25" ? '%' : code == "3B" ? ';' : code == "3D" ? '=' : '?';
      i += 2;
      continue;
    }
    text += raw[i];
  }
  return text;
}

Result<KernelParamReader> KernelParamReader::parse(const std::string &family,
                                                   const std::string &text) {
  KernelParamReader reader;
  reader.family = family;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find(';', start);
    if (end == std::string::npos)
      return Status::error("malformed parameters of a '" + family +
                           "' kernel: '" + text + "' (no ';' at the end)");
    std::string entry = text.substr(start, end - start);
    size_t eq = entry.find('=');
    if (eq == std::string::npos || eq == 0)
      return Status::error("malformed parameters of a '" + family +
                           "' kernel: '" + entry + "' is not key=value");
    reader.values[entry.substr(0, eq)] = entry.substr(eq + 1);
    start = end + 1;
  }
  return reader;
}

static bool parseInteger(const std::string &text, int64_t &value) {
  if (text.empty())
    return false;
  errno = 0;
  char *end = nullptr;
  long long parsed = std::strtoll(text.c_str(), &end, 10);
  if (errno != 0 || *end != '\0')
    return false;
  value = parsed;
  return true;
}

int64_t KernelParamReader::getInt(const std::string &key) {
  auto it = values.find(key);
  int64_t value = 0;
  if (it == values.end() || !parseInteger(it->second, value)) {
    if (status_.ok())
      status_ = Status::error("the parameters of a '" + family +
                              "' kernel have no integer '" + key + "'");
    return 0;
  }
  return value;
}

std::vector<int64_t> KernelParamReader::getInts(const std::string &key) {
  std::vector<int64_t> result;
  auto it = values.find(key);
  if (it == values.end()) {
    if (status_.ok())
      status_ = Status::error("the parameters of a '" + family +
                              "' kernel have no list '" + key + "'");
    return result;
  }
  const std::string &text = it->second;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find(',', start);
    if (end == std::string::npos)
      end = text.size();
    int64_t value = 0;
    if (!parseInteger(text.substr(start, end - start), value)) {
      if (status_.ok())
        status_ = Status::error("the parameters of a '" + family +
                                "' kernel have a malformed list '" + key +
                                "'");
      return {};
    }
    result.push_back(value);
    start = end + 1;
  }
  return result;
}
