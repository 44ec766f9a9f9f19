//===- FrontendTest.cpp - Compile errors through the JIT API --------------===//
//
// A JIT user gets the same diagnostics as a pipec user, as a Status: the
// location, the message, the source line and a caret.
//
//===----------------------------------------------------------------------===//

#include "compiler/JitPipeline.h"
#include "frontend/Diagnostics.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

using pipec::JitPipeline;

TEST(Frontend, CompileErrorHasLocationLineAndCaret) {
  auto result = JitPipeline::compile(
      "pipeline p(x: f32[N]) -> (y: f32[N]) {\n  y = x + q\n}\n", "mine.pipe");
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().message(),
            "mine.pipe:2:11: error: unknown name 'q'\n"
            "  y = x + q\n"
            "          ^");
}

// LLVM's printer drops the caret under a line with any non-ASCII byte;
// Pipe's places it by display width: a tab to the next stop of 8, a CJK
// character two columns, an accented letter one.
TEST(Frontend, CaretUnderUtf8LinesCountsDisplayColumns) {
  const std::string text = "a\t\xE6\x97\xA5\xE6\x9C\xAC = \xC3\xA9 zz\n";
  auto caretUnder = [&](const std::string &what) {
    llvm::SourceMgr sourceMgr;
    sourceMgr.AddNewSourceBuffer(
        llvm::MemoryBuffer::getMemBufferCopy(text, "mine.pipe"), llvm::SMLoc());
    std::string printed;
    llvm::raw_string_ostream os(printed);
    pipec::printDiagnosticsTo(sourceMgr, os);
    const char *start =
        sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID())->getBufferStart();
    sourceMgr.PrintMessage(llvm::SMLoc::getFromPointer(start + text.find(what)),
                           llvm::SourceMgr::DK_Error, "here");
    return printed;
  };
  // a, the tab to 8, two wide characters to 12, " = " to 15, é, a space.
  EXPECT_EQ(caretUnder("zz"), "mine.pipe:1:15: error: here\n"
                              "a       \xE6\x97\xA5\xE6\x9C\xAC = \xC3\xA9 zz\n"
                              "                 ^\n");
  EXPECT_EQ(caretUnder("\xE6\x9C\xAC"),
            "mine.pipe:1:6: error: here\n"
            "a       \xE6\x97\xA5\xE6\x9C\xAC = \xC3\xA9 zz\n"
            "          ^\n");
  // An ASCII line prints as LLVM prints it.
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy("x = zz\n", "plain.pipe"),
      llvm::SMLoc());
  std::string printed;
  llvm::raw_string_ostream os(printed);
  pipec::printDiagnosticsTo(sourceMgr, os);
  const char *start =
      sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID())->getBufferStart();
  sourceMgr.PrintMessage(llvm::SMLoc::getFromPointer(start + 4),
                         llvm::SourceMgr::DK_Note, "there");
  EXPECT_EQ(printed, "plain.pipe:1:5: note: there\nx = zz\n    ^\n");
}

TEST(Frontend, ReportsEveryErrorOfAPipeline) {
  auto result = JitPipeline::compile(
      "pipeline p(x: u8[N], w: f32[M]) -> (y: f32[N]) {\n"
      "  a = x + 1000\n"
      "  y = w * 2\n"
      "}\n");
  ASSERT_FALSE(result.ok());
  const std::string &message = result.status().message();
  EXPECT_NE(message.find("2:11: error: literal 1000 does not fit in u8"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("3:3: error: dim mismatch: result 'y' is declared "
                         "f32[N] but the expression is f32[M]"),
            std::string::npos)
      << message;
}

TEST(Frontend, PicksThePipelineByName) {
  const char *source = "pipeline a(x: f32[N]) -> (y: f32[N]) { y = x * 2 }\n"
                       "pipeline b(x: f32[N]) -> (y: f32[N]) { y = x + 2 }\n";
  auto b = JitPipeline::compile(source, "two.pipe", "b");
  ASSERT_TRUE(b.ok()) << b.status().message();
  EXPECT_EQ((*b)->plan().name, "b");
  auto none = JitPipeline::compile(source, "two.pipe");
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().message(),
            "two.pipe defines 2 pipelines: a, b; name one (the pipeline "
            "argument)");
  auto missing = JitPipeline::compile(source, "two.pipe", "c");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().message(),
            "two.pipe has no pipeline named 'c' (it has a, b)");
}

TEST(Frontend, MissingFileIsAnError) {
  auto result = JitPipeline::compileFile("/nonexistent/x.pipe");
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.status().message().find("cannot read '/nonexistent/x.pipe'"),
            std::string::npos);
}

// A FIFO is no source: reading one nothing writes to waited forever.
TEST(Frontend, SourceThatIsNoRegularFileIsAnError) {
  std::string fifo = ::testing::TempDir() + "pipe-frontend-fifo.pipe";
  ::unlink(fifo.c_str());
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto result = JitPipeline::compileFile(fifo);
  ::unlink(fifo.c_str());
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.status().message().find("it is not a regular file"),
            std::string::npos)
      << result.status().message();
  auto folder = JitPipeline::compileFile(::testing::TempDir());
  ASSERT_FALSE(folder.ok());
  EXPECT_NE(folder.status().message().find("it is a directory"),
            std::string::npos)
      << folder.status().message();
}

TEST(Frontend, PlanDescribesBuffersAndKernels) {
  auto result = JitPipeline::compile(
      "pipeline p(x: u8[N, 4], s: f32) -> (y: f32[N, 4]) {\n"
      "  y = f32(x) * s\n}\n");
  ASSERT_TRUE(result.ok()) << result.status().message();
  const pipert::Plan &plan = (*result)->plan();
  ASSERT_EQ(plan.numParams, 2);
  EXPECT_EQ(plan.buffers[0].name, "x");
  EXPECT_EQ(plan.buffers[0].dtype, pipert::DType::U8);
  ASSERT_EQ(plan.buffers[0].dims.size(), 2u);
  EXPECT_EQ(plan.buffers[0].dims[0].symbol, "N");
  EXPECT_EQ(plan.buffers[0].dims[1].size, 4);
  EXPECT_TRUE(plan.buffers[1].dims.empty());
  ASSERT_EQ(plan.kernels.size(), 1u);
  EXPECT_EQ(plan.kernels[0].inputs, (std::vector<int>{0, 1}));
  EXPECT_EQ(plan.resultNames, (std::vector<std::string>{"y"}));
}

// A bad tensor is named as a bad argument before the kernels load, so a
// machine without a GPU says what is wrong with the input (docs/runtime.md,
// Errors), whichever run overload is called.
TEST(Frontend, BadTensorsAreNamedBeforeTheKernelsLoad) {
  auto pipeline = JitPipeline::compile(
      "pipeline p(x: f32[N, 3]) -> (y: f32[N, 3]) { y = x * 2 }\n", "p.pipe");
  ASSERT_TRUE(pipeline.ok()) << pipeline.status().message();
  pipert::HostTensor wrong(pipert::DType::F64, {4, 3});
  auto hostRun = (*pipeline)->run(std::vector<pipert::HostTensor>{});
  ASSERT_FALSE(hostRun.ok());
  EXPECT_TRUE(hostRun.status().isBadArgument()) << hostRun.status().message();
  hostRun = (*pipeline)->run({wrong});
  ASSERT_FALSE(hostRun.ok());
  EXPECT_TRUE(hostRun.status().isBadArgument());
  EXPECT_NE(hostRun.status().message().find("input 'x' has dtype f64"),
            std::string::npos)
      << hostRun.status().message();
  pipert::HostTensor out(pipert::DType::F32, {4, 3});
  pipert::Status refRun = (*pipeline)->run({wrong.ref()}, {out.ref()});
  EXPECT_TRUE(refRun.isBadArgument()) << refRun.message();
  auto shapes = pipert::resultShapes((*pipeline)->plan(), {wrong.ref()});
  ASSERT_FALSE(shapes.ok());
  EXPECT_TRUE(shapes.status().isBadArgument());
  // The reference says so the same way (it was a plain error).
  auto reference = (*pipeline)->runReference({wrong});
  ASSERT_FALSE(reference.ok());
  EXPECT_TRUE(reference.status().isBadArgument())
      << reference.status().message();
}
