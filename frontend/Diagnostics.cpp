//===- Diagnostics.cpp - Printing a diagnostic with its caret -------------===//

#include "frontend/Diagnostics.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/Unicode.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

using namespace llvm;

namespace {

/// `line` as the terminal shows it, tabs expanded to stops of 8 (as LLVM
/// prints a source line), other control bytes as '?', and the column at which byte `column` of it
/// starts there: UTF-8 characters take their display width (two for wide
/// ones); an invalid sequence counts a column a byte.
std::string expandLine(StringRef line, size_t column, size_t *displayColumn) {
  std::string shown;
  size_t width = 0;
  *displayColumn = 0;
  for (size_t i = 0; i < line.size();) {
    // (A column inside a character, of bytes that are no UTF-8, takes
    // the character's.)
    if (i <= column)
      *displayColumn = width;
    unsigned char c = (unsigned char)line[i];
    if (c == '\t') {
      size_t next = (width / 8 + 1) * 8;
      shown.append(next - width, ' ');
      width = next;
      ++i;
      continue;
    }
    // Other control bytes (a NUL would end the line on a terminal) as a
    // '?' of one column, the caret under it where it points there.
    if (c < 0x20 || c == 0x7F) {
      shown += '?';
      ++width;
      ++i;
      continue;
    }
    size_t length = c < 0x80   ? 1
                    : c >= 0xF0 ? 4
                    : c >= 0xE0 ? 3
                    : c >= 0xC0 ? 2
                                : 1;
    // A lead byte without its continuation bytes is one byte of its own.
    if (i + length > line.size())
      length = 1;
    for (size_t k = 1; k < length; ++k)
      if (((unsigned char)line[i + k] & 0xC0) != 0x80)
        length = 1;
    StringRef character = line.substr(i, length);
    int columns = sys::unicode::columnWidthUTF8(character);
    shown += character.str();
    width += columns > 0 ? size_t(columns) : (c < 0x80 ? 0 : 1);
    i += length;
  }
  if (column >= line.size())
    *displayColumn = width + (column - line.size());
  return shown;
}

} // namespace

void pipec::printSourceDiagnostic(const SMDiagnostic &diag, raw_ostream &os) {
  StringRef line = diag.getLineContents();
  if (diag.getLineNo() < 0 || diag.getColumnNo() < 0 ||
      all_of(line, [](char c) {
        return isASCII(c) && (c == '\t' || (c >= 0x20 && c != 0x7F));
      })) {
    diag.print(nullptr, os, os.has_colors());
    return;
  }
  // A byte order mark opening the file (the lexer skips it) is neither
  // shown nor counted in the column.
  int columnNo = diag.getColumnNo();
  if (diag.getLineNo() == 1 && line.starts_with("\xEF\xBB\xBF") &&
      columnNo >= 3) {
    line = line.drop_front(3);
    columnNo -= 3;
  }
  // The location and the message as LLVM writes them, in its colors on a
  // terminal (without the line, which it would print without a caret),
  // then the line and the caret.
  bool colors = os.has_colors();
  std::string where = diag.getFilename() == "-" ? std::string("<stdin>")
                                                : diag.getFilename().str();
  if (colors)
    os.changeColor(raw_ostream::SAVEDCOLOR, true);
  if (!where.empty())
    os << where << ':' << diag.getLineNo() << ':' << columnNo + 1 << ": ";
  auto label = [&](raw_ostream::Colors color, const char *text) {
    if (colors)
      os.changeColor(color, true);
    os << text;
  };
  switch (diag.getKind()) {
  case SourceMgr::DK_Error:
    label(raw_ostream::RED, "error: ");
    break;
  case SourceMgr::DK_Warning:
    label(raw_ostream::MAGENTA, "warning: ");
    break;
  case SourceMgr::DK_Remark:
    label(raw_ostream::BLUE, "remark: ");
    break;
  case SourceMgr::DK_Note:
    label(raw_ostream::BLACK, "note: ");
    break;
  }
  if (colors)
    os.changeColor(raw_ostream::SAVEDCOLOR, true);
  os << diag.getMessage() << '\n';
  if (colors)
    os.resetColor();
  size_t column = 0;
  os << expandLine(line, size_t(columnNo), &column) << '\n';
  if (colors)
    os.changeColor(raw_ostream::GREEN, true);
  os << std::string(column, ' ') << '^';
  if (colors)
    os.resetColor();
  os << '\n';
}

void pipec::printDiagnosticsTo(SourceMgr &sourceMgr, raw_ostream &os) {
  sourceMgr.setDiagHandler(
      [](const SMDiagnostic &diag, void *stream) {
        printSourceDiagnostic(diag, *static_cast<raw_ostream *>(stream));
      },
      &os);
}
