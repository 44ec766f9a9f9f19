//===- pipec.cpp - The Pipe compiler driver -------------------------------===//
//
//   pipec FILE.pipe --emit=ast|mlir|fused|cuda|ptx|plan [-o OUT]
//   pipec FILE.pipe --emit=aot -o DIR [--namespace NS] [--gpu-arch 90]
//   pipec run FILE.pipe --input NAME=FILE.npy ... --output DIR
//              [--backend auto|gpu|reference] [--pipeline NAME]
//   pipec --gpu-info
//
// Every stage prints, and .mlir input (tensor-level or fused) is accepted
// in place of .pipe, so each stage can be dumped, edited and fed back.
//
//===----------------------------------------------------------------------===//

#include "codegen/AotEmitter.h"
#include "codegen/KernelFamily.h"
#include "codegen/PlanBuilder.h"
#include "codegen/Reports.h"
#include "compiler/Compiler.h"
#include "frontend/Diagnostics.h"
#include "frontend/Sema.h"
#include "images/Images.h"
#include "dialect/PipeDialect.h"
#include "reference/ReferenceExecutor.h"
#include "runtime/Nvrtc.h"
#include "runtime/Runtime.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/ToolOutputFile.h"

#include <chrono>
#include <cstring>
#include <functional>
#include <unistd.h>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <new>
#include <set>

namespace {
/// Wall-clock phases of `pipec run`, printed with --time-phases.
class PhaseTimer {
public:
  void mark(const char *phase) {
    auto now = std::chrono::steady_clock::now();
    phases.emplace_back(phase, std::chrono::duration<double, std::milli>(
                                   now - last).count());
    last = now;
  }
  void print() const {
    llvm::errs() << "pipec: time:";
    double total = 0;
    for (auto &[phase, ms] : phases) {
      llvm::errs() << " " << phase << " " << llvm::format("%.2f", ms) << " ms,";
      total += ms;
    }
    llvm::errs() << " total " << llvm::format("%.2f", total) << " ms\n";
  }

private:
  std::chrono::steady_clock::time_point last = std::chrono::steady_clock::now();
  std::vector<std::pair<const char *, double>> phases;
};
PhaseTimer phaseTimer;
} // namespace

using namespace mlir;
namespace cl = llvm::cl;

namespace {
enum class Emit { AST, MLIR, Fused, Cuda, Ptx, Plan, Aot, Dot };
enum class Backend { Auto, Gpu, Reference };
} // namespace

/// Pipe's own options: --help lists only these (MLIR's and LLVM's are
/// under --help-hidden).
static cl::OptionCategory pipecCategory("pipec options");

/// The parser of an enumerated option, whose error lists the valid values
/// ("--backend: 'cpu' is not one of auto, gpu, reference").
template <typename T> class EnumParser : public cl::parser<T> {
public:
  using cl::parser<T>::parser;
  bool parse(cl::Option &option, llvm::StringRef, llvm::StringRef value,
             T &result) {
    std::string valid;
    for (unsigned i = 0, e = this->getNumOptions(); i != e; ++i) {
      if (this->getOption(i) == value) {
        result = this->Values[i].V.getValue();
        return false;
      }
      valid += (i ? ", " : "") + this->getOption(i).str();
    }
    return option.error("'" + value + "' is not one of " + valid);
  }
};

static cl::opt<std::string> inputFile(cl::Positional,
                                      cl::desc("<input .pipe or .mlir file, "
                                               "or - for standard input>"),
                                      cl::cat(pipecCategory));
static cl::opt<Emit, false, EnumParser<Emit>> emitAction(
    "emit", cl::desc("What to print"), cl::init(Emit::Fused),
    cl::cat(pipecCategory),
    cl::values(
        clEnumValN(Emit::AST, "ast", "the checked syntax tree"),
        clEnumValN(Emit::MLIR, "mlir", "tensor-level pipe IR, before passes"),
        clEnumValN(Emit::Fused, "fused", "IR after the default pipeline"),
        clEnumValN(Emit::Cuda, "cuda", "the kernels as CUDA C++"),
        clEnumValN(Emit::Ptx, "ptx", "the kernels as PTX, compiled by NVRTC"),
        clEnumValN(Emit::Plan, "plan", "the runtime plan: buffers, kernels"),
        clEnumValN(Emit::Dot, "dot",
                   "the pipeline as a Graphviz graph (-o F.svg or F.png "
                   "renders it with Graphviz's dot)"),
        clEnumValN(Emit::Aot, "aot",
                   "a header and a C++ source (in the -o directory) that "
                   "link against the runtime alone")));
static cl::opt<std::string> outputPath("o", cl::desc("Output file (directory "
                                                     "for --emit=aot)"),
                                       cl::init("-"), cl::cat(pipecCategory));
static cl::opt<std::string> pipelineName("pipeline",
                                         cl::desc("The pipeline to use when "
                                                  "the file has several"), cl::cat(pipecCategory));
static cl::opt<int> gpuArch("gpu-arch",
                            cl::desc("Target compute capability for ptx and "
                                     "aot, e.g. 90 for sm_90"),
                            cl::init(90), cl::cat(pipecCategory));
static cl::opt<std::string> cppNamespace("namespace",
                                         cl::desc("C++ namespace of --emit=aot "
                                                  "entry points"),
                                         cl::init("pipe_generated"), cl::cat(pipecCategory));
static cl::opt<bool> noKernelImages(
    "no-kernel-images",
    cl::desc("--emit=aot: embed only CUDA source (compiled by NVRTC when the "
             "program first runs), no cubin or PTX"), cl::cat(pipecCategory));
static cl::list<std::string> inputs("input",
                                    cl::desc("run: NAME=FILE.npy for each "
                                             "parameter"), cl::cat(pipecCategory));
static cl::opt<std::string> outputDir("output",
                                      cl::desc("run: directory for the "
                                               "results, one NAME.npy each "
                                               "(default: the current one)"),
                                      cl::init("."), cl::cat(pipecCategory));
static cl::opt<Backend, false, EnumParser<Backend>> backend(
    "backend", cl::desc("run: where to run"), cl::init(Backend::Auto),
    cl::cat(pipecCategory),
    cl::values(clEnumValN(Backend::Auto, "auto",
                          "the GPU if there is one, else the CPU reference"),
               clEnumValN(Backend::Gpu, "gpu", "the GPU, or fail"),
               clEnumValN(Backend::Reference, "reference",
                          "the CPU reference executor")));
static cl::opt<uint64_t> seed(
    "seed",
    cl::desc("run: the seed of the random numbers (default 0); with "
             "--random-run, a run is replayed bit for bit"),
    cl::init(0), cl::cat(pipecCategory));
static cl::opt<uint64_t> randomRun(
    "random-run",
    cl::desc("run: the random run number to draw with (default 0: a "
             "pipeline's first run)"),
    cl::init(0), cl::cat(pipecCategory));
static cl::opt<bool> fastMath(
    "fast-math",
    cl::desc("Compile kernels with FMA contraction and approximate division: "
             "faster, but results differ from the CPU reference in the last "
             "bits"), cl::cat(pipecCategory));
static cl::opt<bool> timePhases(
    "time-phases",
    cl::desc("run: print how long each phase took (compile, kernel load, "
             "run, .npy I/O) on stderr"), cl::cat(pipecCategory));
static cl::opt<std::string> report(
    "report", cl::desc("Print a report instead: 'transfers' (every host/device "
                       "copy of one run)"),
    cl::value_desc("transfers"), cl::cat(pipecCategory));
static cl::opt<std::string> dimSizes(
    "dims", cl::desc("Sizes for the byte counts of --report=transfers and "
                     "--emit=plan, e.g. N=16,H=1024"),
    cl::value_desc("NAME=SIZE,..."), cl::cat(pipecCategory));
static cl::opt<bool> nvrtcInfo("nvrtc-info",
                               cl::desc("Print the NVRTC version, or why it "
                                        "cannot be loaded (exit code 1)"), cl::cat(pipecCategory));
static cl::opt<std::string> testPass(
    "test-pass", cl::Hidden,
    cl::desc("For tests: run this registered pass after the default pipeline "
             "(pipe-test-break-kernels)"), cl::cat(pipecCategory));
static cl::opt<bool> listFunctions(
    "list-functions",
    cl::desc("Print the functions, operators and dtypes the language knows, "
             "one per line, and exit"), cl::cat(pipecCategory));
static cl::opt<bool> gpuInfo("gpu-info",
                             cl::desc("Print the GPU the runtime would use, "
                                      "or why there is none (exit code 1)"), cl::cat(pipecCategory));

/// An input: a .npy file, a PNG or JPEG image (u8[H, W, C]), or a folder of
/// images (u8[N, H, W, C]). One channel is dropped where the parameter has
/// no channel dim (u8[H, W], u8[N, H, W]).
static pipert::Result<pipert::HostTensor>
readInput(const std::string &path, const pipert::PlanBuffer &param) {
  bool folder = llvm::sys::fs::is_directory(path);
  if (!folder && !pipeimg::isImagePath(path))
    return pipert::readNpy(path);
  auto tensor = folder ? pipeimg::readImageFolder(path) : pipeimg::readImage(path);
  if (!tensor)
    return tensor;
  const std::vector<int64_t> &shape = tensor->shape();
  if (shape.back() == 1 && param.dims.size() + 1 == shape.size()) {
    pipert::HostTensor gray(pipert::DType::U8,
                            std::vector<int64_t>(shape.begin(), shape.end() - 1));
    std::memcpy(gray.data(), tensor->data(), tensor->numBytes());
    return gray;
  }
  return tensor;
}

static int fail(const llvm::Twine &message) {
  llvm::errs() << "pipec: error: " << message << "\n";
  return 1;
}

static LogicalResult writeOutput(llvm::StringRef text) {
  std::string error;
  auto output = openOutputFile(outputPath, &error);
  if (!output) {
    llvm::errs() << "pipec: error: " << error << "\n";
    return failure();
  }
  output->os() << text;
  output->keep();
  return success();
}

/// --dims as sizes, each a dim of some pipeline's parameters; the error,
/// or "".
static std::string parseDimSizes(llvm::ArrayRef<pipert::Plan> plans,
                                 std::map<std::string, int64_t> &sizes) {
  llvm::SmallVector<llvm::StringRef> entries;
  llvm::StringRef(dimSizes).split(entries, ',');
  for (llvm::StringRef entry : entries) {
    if (entry.trim().empty())
      continue;
    auto [name, value] = entry.split('=');
    int64_t size;
    if (name.trim().empty() || value.trim().getAsInteger(10, size) || size < 0)
      return "--dims '" + entry.str() + "' is not NAME=SIZE";
    auto [it, fresh] = sizes.try_emplace(name.trim().str(), size);
    if (!fresh)
      return "--dims gives " + it->first + " twice (" +
             std::to_string(it->second) + " and " + std::to_string(size) + ")";
  }
  std::set<std::string> known;
  for (const pipert::Plan &plan : plans)
    for (int i = 0; i < plan.numParams; ++i)
      for (const pipert::PlanDim &dim : plan.buffers[i].dims)
        if (!dim.symbol.empty())
          known.insert(dim.symbol);
  for (const auto &[name, size] : sizes)
    if (!known.count(name)) {
      std::string list;
      for (const std::string &dim : known)
        list += (list.empty() ? "" : ", ") + dim;
      return "--dims names '" + name + "', which is no dim of the " +
             "parameters (" + (list.empty() ? "none" : list) + ")";
    }
  return "";
}

static std::string describePlan(const pipert::Plan &plan,
                                 const std::map<std::string, int64_t> &sizes) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "plan " << plan.name << "\n";
  for (size_t b = 0; b < plan.buffers.size(); ++b) {
    const pipert::PlanBuffer &buffer = plan.buffers[b];
    os << "  buffer %" << b << " "
       << (int(b) < plan.numParams ? "param " : "") << buffer.name << " : "
       << pipert::dtypeName(buffer.dtype) << pipert::describeDims(buffer.dims);
    if (buffer.aliasOf >= 0)
      os << " = view of %" << buffer.aliasOf;
    os << "\n";
  }
  // Conditions on the dims, checked when the run binds them.
  for (const pipert::PlanDimCheck &check : plan.dimChecks)
    os << "  check dims " << check.expression << " >= 0: " << check.message
       << "\n";
  for (const pipert::PlanKernel &kernel : plan.kernels) {
    const pipec::KernelFamily *family = pipec::findKernelFamily(kernel.family);
    os << "  " << (family ? family->describe(kernel) : kernel.name) << " (";
    for (size_t i = 0; i < kernel.inputs.size(); ++i)
      os << (i ? ", " : "") << "%" << kernel.inputs[i];
    os << ") -> (";
    for (size_t i = 0; i < kernel.outputs.size(); ++i)
      os << (i ? ", " : "") << "%" << kernel.outputs[i];
    os << ")\n";
  }
  for (const pipert::PlanChoice &choice : plan.choices)
    os << "  choice %" << choice.result << " = %" << choice.condition
       << " ? %" << choice.ifTrue << " : %" << choice.ifFalse
       << " (the host decides)\n";
  for (size_t r = 0; r < plan.results.size(); ++r)
    os << "  result " << plan.resultNames[r] << " = %" << plan.results[r]
       << "\n";
  os << pipec::describeDeviceMemory(plan, sizes);
  if (plan.batchDim.empty()) {
    os << "shards: cannot be split: " << plan.shardError << "\n";
  } else {
    os << "shards: split along " << plan.batchDim;
    for (size_t i = 0; i < plan.combines.size(); ++i)
      os << (i ? ", %" : "; combined across shards: %")
         << plan.combines[i].buffer << " ("
         << pipert::getCombineKindName(plan.combines[i].kind) << ")";
    os << "\n";
  }
  return text;
}

/// The first parameter or result pinned to device memory (@device), or "".
static std::string firstPinnedToDevice(const pipert::Plan &plan) {
  for (int b = 0; b < plan.numParams; ++b)
    if (plan.buffers[size_t(b)].memory == pipert::PlanMemory::Device)
      return plan.buffers[size_t(b)].name;
  for (size_t r = 0; r < plan.results.size(); ++r)
    if (plan.buffers[size_t(plan.results[r])].memory ==
        pipert::PlanMemory::Device)
      return plan.resultNames[r];
  return "";
}

/// `pipec run`: binds --input files to parameters, runs, writes results.
static int runPipeline(pipe::PipelineOp pipeline, const pipert::Plan &plan) {
  // Parameters are read from and results written as .npy files, which
  // have no bf16: said before anything runs rather than after.
  auto noBF16 = [](const std::string &what, const std::string &name,
                   const std::string &wayOut) {
    return fail(what + " '" + name +
                "' is bf16, which a .npy file cannot hold (NumPy has no "
                "bf16): run this pipeline from C++ or Python, or " + wayOut);
  };
  for (int i = 0; i < plan.numParams; ++i)
    if (plan.buffers[i].dtype == pipert::DType::BF16)
      return noBF16("parameter", plan.buffers[i].name,
                    "declare it f32 and convert it where it is used, bf16(" +
                        plan.buffers[i].name + ")");
  for (size_t r = 0; r < plan.results.size(); ++r)
    if (plan.buffers[plan.results[r]].dtype == pipert::DType::BF16)
      return noBF16("result", plan.resultNames[r],
                    "return f32(" + plan.resultNames[r] + ")");
  std::map<std::string, std::string> files;
  for (const std::string &input : inputs) {
    size_t eq = input.find('=');
    if (eq == std::string::npos || eq == 0)
      return fail("--input '" + input + "' is not NAME=FILE.npy");
    auto [it, inserted] =
        files.try_emplace(input.substr(0, eq), input.substr(eq + 1));
    if (!inserted)
      return fail("--input '" + it->first + "' is given twice ('" +
                  it->second + "' and '" + input.substr(eq + 1) + "')");
  }
  std::vector<pipert::HostTensor> tensors;
  for (int i = 0; i < plan.numParams; ++i) {
    const std::string &name = plan.buffers[i].name;
    auto it = files.find(name);
    if (it == files.end())
      return fail("no --input for parameter '" + name + "' of pipeline '" +
                  plan.name + "'");
    auto tensor = readInput(it->second, plan.buffers[i]);
    if (!tensor)
      return fail(tensor.status().message());
    tensors.push_back(tensor.take());
    files.erase(it);
  }
  if (!files.empty())
    return fail("pipeline '" + plan.name + "' has no parameter '" +
                files.begin()->first + "'");
  phaseTimer.mark("read inputs");

  bool useGpu = backend == Backend::Gpu;
  // pipec run's tensors are .npy files in host memory: a GPU run refuses
  // a pipeline pinned to device memory, saying so as pipec's own limit
  // (the runtime's message would tell the user to pass device memory).
  std::string pinned = firstPinnedToDevice(plan);
  auto refusePinned = [&] {
    return fail("pipeline '" + plan.name + "' pins '" + pinned +
                "' to device memory (@device), and pipec run passes its "
                "tensors in host memory (.npy files): run it from C++ or "
                "Python with device tensors, or here with --backend=reference");
  };
  if (useGpu && !pinned.empty())
    return refusePinned();
  // A bad tensor is named before a missing GPU is (docs/runtime.md), as
  // the GPU run would name it; the reference checks its own.
  if (useGpu) {
    std::vector<pipert::TensorRef> refs;
    for (const pipert::HostTensor &tensor : tensors)
      refs.push_back(tensor.ref());
    if (auto shapes = pipert::resultShapes(plan, refs); !shapes)
      return fail(shapes.status().message());
  }
  if (backend != Backend::Reference) {
    pipert::Status gpu = pipert::checkGpuAvailable();
    phaseTimer.mark(gpu.ok() ? "GPU init (driver, context)"
                             : "looking for a GPU (none)");
    if (backend == Backend::Auto) {
      useGpu = gpu.ok();
      if (!useGpu)
        llvm::errs() << "pipec: no GPU (" << gpu.message()
                     << "); running on the CPU reference executor\n";
    }
  }
  if (useGpu && !pinned.empty())
    return refusePinned();
  // Host memory that runs out while the pipeline runs (its results, the
  // reference's values) is the run's failure, said as one, not LLVM's
  // out-of-memory crash report (InitLLVM's handler); nothing is written.
  static std::string outOfMemory;
  outOfMemory = "pipec: error: out of host memory running pipeline '" +
                plan.name + "'; nothing was written\n";
  std::new_handler previousHandler = std::set_new_handler([] {
    std::fputs(outOfMemory.c_str(), stderr);
    std::_Exit(1);
  });
  pipert::Result<std::vector<pipert::HostTensor>> results =
      pipert::Status::error("not run");
  if (useGpu) {
    auto executable = pipert::Executable::load(plan);
    if (!executable)
      return fail(executable.status().message());
    phaseTimer.mark("kernel load (cache or NVRTC)");
    (*executable)->setRandomState({seed, randomRun});
    results = (*executable)->run(tensors);
    phaseTimer.mark("run (copies + kernels)");
  } else {
    results = pipec::runReference(pipeline, tensors, {seed, randomRun});
    phaseTimer.mark("run (CPU reference)");
  }
  // (The writes below clean up after themselves: not this handler's exit.)
  std::set_new_handler(previousHandler);
  if (!results)
    return fail(results.status().message());
  if (std::error_code ec = llvm::sys::fs::create_directories(outputDir.getValue()))
    return fail("cannot create '" + outputDir + "': " + ec.message());
  // All results or none: a failure leaves the directory's earlier files.
  // Each result is a .npy; u8 and bool ones of image shape are also PNGs
  // (NAME.png, or NAME-0.png ... for a batch), for a person to look at.
  std::vector<std::pair<std::string,
                        std::function<pipert::Status(const std::string &)>>>
      writes;
  std::vector<std::string> npyPaths, images;
  for (size_t r = 0; r < results->size(); ++r) {
    const pipert::HostTensor &result = (*results)[r];
    const std::string &name = plan.resultNames[r];
    llvm::SmallString<256> path(outputDir.getValue());
    llvm::sys::path::append(path, name + ".npy");
    npyPaths.push_back(path.str().str());
    writes.push_back({npyPaths.back(), [&result, shown = npyPaths.back()](
                                           const std::string &temporary) {
                        return pipert::writeNpyInPlace(temporary, shown, result);
                      }});
    pipeimg::ImageLayout layout = pipeimg::resultImageLayout(
        result, plan.buffers[plan.results[r]].dims);
    for (int64_t i = 0; i < layout.count; ++i) {
      llvm::SmallString<256> png(outputDir.getValue());
      llvm::sys::path::append(png, pipeimg::pngName(name, layout, i));
      writes.push_back({png.str().str(), [&result, layout, i](
                                             const std::string &temporary) {
                          return pipeimg::writePng(temporary, result, layout, i);
                        }});
    }
    if (layout.count == 1)
      images.push_back(writes.back().first + " (" + name + " as an image)");
    else if (layout.count > 1)
      images.push_back(writes[writes.size() - layout.count].first + " ... " +
                       writes.back().first + " (" + name + " as " +
                       std::to_string(layout.count) + " images)");
  }
  if (pipert::Status s = pipert::writeFilesAllOrNothing(writes); !s.ok())
    return fail(s.message());
  for (size_t r = 0; r < results->size(); ++r)
    llvm::outs() << "wrote " << npyPaths[r] << " ("
                 << (*results)[r].describe() << ") on the "
                 << (useGpu ? "GPU" : "CPU reference") << "\n";
  for (const std::string &image : images)
    llvm::outs() << "wrote " << image << "\n";
  phaseTimer.mark("write outputs");
  if (timePhases)
    phaseTimer.print();
  return 0;
}

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  // `pipec run ...` is `pipec ...` in run mode.
  bool runMode = argc > 1 && llvm::StringRef(argv[1]) == "run";
  std::vector<char *> args(argv, argv + argc);
  if (runMode)
    args.erase(args.begin() + 1);
  registerAsmPrinterCLOptions();
  registerMLIRContextCLOptions();
  registerPassManagerCLOptions();
  // MLIR's and LLVM's options move to --help-hidden (HideUnrelatedOptions
  // would drop them from it too).
  for (auto &[name, option] : cl::getRegisteredOptions())
    if (!llvm::is_contained(option->Categories, &pipecCategory) &&
        name != "help" && name != "help-list" && name != "version" &&
        option->getOptionHiddenFlag() == cl::NotHidden)
      option->setHiddenFlag(cl::Hidden);
  cl::SetVersionPrinter([](llvm::raw_ostream &os) {
    auto nvrtc = pipert::getNvrtcVersion();
    os << "pipec (Pipe) " << PIPE_VERSION << "\n  LLVM and MLIR "
       << LLVM_VERSION_STRING << " (linked in)\n  "
       << (nvrtc ? *nvrtc : "no NVRTC: " + nvrtc.status().message())
       << " (loaded at run time)\n";
  });
  const char *usage = "pipec: the Pipe compiler\n\n"
                      "  pipec FILE.pipe --emit=...\n"
                      "  pipec run FILE.pipe --input NAME=FILE.npy "
                      "... --output DIR\n"
                      "  (FILE - reads standard input)\n";
  cl::ParseCommandLineOptions(int(args.size()), args.data(), usage);

  if (listFunctions) {
    for (const std::string &line : pipec::listLanguage())
      llvm::outs() << line << "\n";
    return 0;
  }
  if (nvrtcInfo) {
    auto version = pipert::getNvrtcVersion();
    llvm::outs() << (version ? *version : "no NVRTC: " + version.status().message())
                 << "\n";
    return version ? 0 : 1;
  }
  if (gpuInfo) {
    auto description = pipert::describeGpu();
    if (!description) {
      llvm::outs() << "no GPU: " << description.status().message() << "\n";
      return 1;
    }
    llvm::outs() << *description << "\n";
    return 0;
  }

  if (inputFile.empty()) {
    // A bare `pipec` says how to use it rather than wait on standard input.
    llvm::errs() << usage << "\npipec --help lists the options.\n";
    return 1;
  }
  // The AOT header opens `namespace NS {` and names C functions after it:
  // identifiers joined by ::, or the output would not compile.
  if (!cppNamespace.empty()) {
    llvm::SmallVector<llvm::StringRef> parts;
    llvm::StringRef(cppNamespace.getValue()).split(parts, "::");
    // C++'s keywords cannot name a namespace either.
    static const std::set<llvm::StringRef> keywords = {
        "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand",
        "bitor", "bool", "break", "case", "catch", "char", "char8_t",
        "char16_t", "char32_t", "class", "compl", "concept", "const",
        "consteval", "constexpr", "constinit", "const_cast", "continue",
        "co_await", "co_return", "co_yield", "decltype", "default", "delete",
        "do", "double", "dynamic_cast", "else", "enum", "explicit", "export",
        "extern", "false", "float", "for", "friend", "goto", "if", "inline",
        "int", "long", "mutable", "namespace", "new", "noexcept", "not",
        "not_eq", "nullptr", "operator", "or", "or_eq", "private",
        "protected", "public", "register", "reinterpret_cast", "requires",
        "return", "short", "signed", "sizeof", "static", "static_assert",
        "static_cast", "struct", "switch", "template", "this",
        "thread_local", "throw", "true", "try", "typedef", "typeid",
        "typename", "union", "unsigned", "using", "virtual", "void",
        "volatile", "wchar_t", "while", "xor", "xor_eq"};
    for (llvm::StringRef part : parts)
      if (part.empty() || llvm::isDigit(part.front()) ||
          keywords.count(part) ||
          !llvm::all_of(part, [](char c) {
            return llvm::isAlnum(c) || c == '_';
          }))
        return fail("--namespace '" + cppNamespace +
                    "' is not a C++ namespace name (identifiers of letters, "
                    "digits and _, not keywords, joined by ::)");
  }
  // The options of a run are errors without one (as --dims without
  // --report), not silently ignored.
  const cl::Option *runOptions[] = {std::addressof(inputs), &outputDir,
                                    &backend, &seed,
                                    &randomRun};
  if (!runMode)
    for (const cl::Option *option : runOptions)
      if (option->getNumOccurrences())
        return fail("--" + option->ArgStr.str() +
                    " is an option of pipec run (pipec run FILE.pipe "
                    "--input NAME=FILE.npy ... --output DIR)");
  // And the options of the printing stages are errors in a run, which
  // would ignore them.
  const cl::Option *printOptions[] = {&emitAction, &outputPath, &report,
                                      &dimSizes,   &gpuArch,    &cppNamespace,
                                      &noKernelImages};
  if (runMode)
    for (const cl::Option *option : printOptions)
      if (option->getNumOccurrences())
        return fail((option->ArgStr.size() == 1 ? "-" : "--") +
                    option->ArgStr.str() +
                    " is an option of pipec FILE.pipe --emit=... or "
                    "--report=..., which print; pipec run runs the pipeline "
                    "and writes its results to --output");
  if (!dimSizes.empty() && report.empty() && emitAction != Emit::Plan)
    return fail("--dims sizes the byte counts of --report=transfers and "
                "--emit=plan; give one of them too");
  std::string error;
  auto file = openInputFile(inputFile, &error);
  if (!file)
    return fail(error);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  // The caret under every diagnostic's line, UTF-8 ones too.
  pipec::printDiagnosticsTo(sourceMgr, llvm::errs());
  MLIRContext context;
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);

  // A source with no pipeline (empty, or only comments) has nothing to
  // emit: said as `pipec run` and pipegpu.compile say it.
  std::string source = inputFile == "-" ? std::string("the input")
                                        : inputFile.getValue();
  // At line 1 of the file, as every diagnostic has a place.
  auto noPipeline = [&] {
    const llvm::MemoryBuffer *buffer = sourceMgr.getMemoryBuffer(1);
    sourceMgr.PrintMessage(
        llvm::errs(), llvm::SMLoc::getFromPointer(buffer->getBufferStart()),
        llvm::SourceMgr::DK_Error,
        source + " defines no pipeline (it is empty, or comments only)");
    return 1;
  };
  if (emitAction == Emit::AST && !runMode) {
    std::optional<pipec::ModuleAST> ast = pipec::parseAndCheck(sourceMgr);
    if (!ast)
      return 1;
    if (ast->pipelines.empty())
      return noPipeline();
    // --pipeline keeps the one it names, as the later stages do.
    if (!pipelineName.empty()) {
      auto named = llvm::find_if(ast->pipelines, [](const auto &pipeline) {
        return pipeline.name == pipelineName;
      });
      if (named == ast->pipelines.end()) {
        std::string names;
        for (const auto &pipeline : ast->pipelines)
          names += (names.empty() ? "" : ", ") + pipeline.name;
        return fail(source + " has no pipeline named '" + pipelineName +
                    "' (it has " + names + ")");
      }
      pipec::PipelineAST kept = std::move(*named);
      ast->pipelines.clear();
      ast->pipelines.push_back(std::move(kept));
    }
    std::string text;
    llvm::raw_string_ostream os(text);
    pipec::dumpAST(*ast, os);
    return failed(writeOutput(text)) ? 1 : 0;
  }

  OwningOpRef<ModuleOp> module = pipec::loadModule(context, sourceMgr);
  if (!module)
    return 1;
  if (module->getOps<pipe::PipelineOp>().empty() &&
      !llvm::StringRef(source).ends_with(".mlir"))
    return noPipeline();
  // --pipeline keeps the one it names for every stage, --emit=mlir and
  // fused included.
  if (!pipelineName.empty()) {
    std::string why;
    Operation *named = pipec::findPipeline(*module, pipelineName, why);
    if (!named)
      return fail(source + " " + why);
    for (pipe::PipelineOp other :
         llvm::make_early_inc_range(module->getOps<pipe::PipelineOp>()))
      if (other.getOperation() != named)
        other.erase();
  }
  if (emitAction == Emit::MLIR && !runMode) {
    std::string text;
    llvm::raw_string_ostream os(text);
    module->print(os);
    return failed(writeOutput(text)) ? 1 : 0;
  }
  if (failed(pipec::runDefaultPipeline(
          *module,
          [](PassManager &pm) { (void)applyPassManagerCLOptions(pm); },
          testPass)))
    return 1;
  if (emitAction == Emit::Fused && !runMode && report.empty()) {
    std::string text;
    llvm::raw_string_ostream os(text);
    module->print(os);
    return failed(writeOutput(text)) ? 1 : 0;
  }

  // The later stages work on every pipeline of the file, or on the one
  // --pipeline names.
  SmallVector<pipe::PipelineOp> pipelines;
  if (!pipelineName.empty() || runMode) {
    std::string why;
    auto one = dyn_cast_or_null<pipe::PipelineOp>(
        pipec::findPipeline(*module, pipelineName, why));
    if (!one)
      return fail(
          (inputFile == "-" ? std::string("the input") : inputFile.getValue()) +
          " " + why +
          (pipelineName.empty() && why.find("pipelines") != std::string::npos
               ? "; name one with --pipeline=NAME"
               : ""));
    pipelines.push_back(one);
  } else {
    llvm::append_range(pipelines, module->getOps<pipe::PipelineOp>());
  }
  std::vector<pipert::Plan> plans;
  for (pipe::PipelineOp pipeline : pipelines) {
    FailureOr<pipert::Plan> plan = pipec::buildPlan(pipeline);
    if (failed(plan))
      return 1;
    plan->fastMath = fastMath;
    plans.push_back(std::move(*plan));
  }

  if (runMode) {
    phaseTimer.mark("compile");
    int status = runPipeline(pipelines.front(), plans.front());
    // The results are written and closed. Skip the teardown of the CUDA
    // context and of the compiler's state, which costs a person waiting on
    // `pipec run` tens of milliseconds and changes nothing.
    llvm::outs().flush();
    llvm::errs().flush();
    _exit(status);
  }

  std::string text;
  llvm::raw_string_ostream os(text);
  if (!report.empty()) {
    if (report != "transfers")
      return fail("unknown --report '" + report + "' (transfers)");
    std::map<std::string, int64_t> sizes;
    if (std::string why = parseDimSizes(plans, sizes); !why.empty())
      return fail(why);
    for (auto [pipeline, plan] : llvm::zip(pipelines, plans))
      os << pipec::describeTransfers(pipeline, plan, sizes);
    return failed(writeOutput(text)) ? 1 : 0;
  }
  switch (emitAction) {
  case Emit::Cuda: {
    // The prelude once, then each kernel's own source.
    std::vector<pipert::Plan> sources;
    bool stencils = false;
    for (pipe::PipelineOp pipeline : pipelines) {
      FailureOr<pipert::Plan> plan =
          pipec::buildPlan(pipeline, /*withPrelude=*/false);
      if (failed(plan))
        return 1;
      for (const pipert::PlanKernel &kernel : plan->kernels)
        stencils |= pipec::findKernelFamily(kernel.family)->needsStencilPrelude();
      sources.push_back(std::move(*plan));
    }
    os << pipec::getCudaPrelude(stencils) << "\n";
    for (const pipert::Plan &plan : sources)
      for (const pipert::PlanKernel &kernel : plan.kernels)
        os << kernel.source;
    break;
  }
  case Emit::Ptx:
    for (const pipert::Plan &plan : plans)
      for (const pipert::PlanKernel &kernel : plan.kernels) {
        auto ptx = pipert::compileCuda(kernel.source, kernel.name, gpuArch,
                                       /*ptx=*/true, plan.fastMath);
        if (!ptx)
          return fail(ptx.status().message());
        os << "// kernel " << kernel.name << "\n"
           << llvm::StringRef(ptx->image).rtrim('\0') << "\n";
      }
    break;
  case Emit::Plan: {
    std::map<std::string, int64_t> sizes;
    if (std::string why = parseDimSizes(plans, sizes); !why.empty())
      return fail(why);
    for (const pipert::Plan &plan : plans)
      os << describePlan(plan, sizes);
    break;
  }
  case Emit::Dot: {
    for (auto [pipeline, plan] : llvm::zip(pipelines, plans))
      os << pipec::emitDot(pipeline, plan);
    llvm::StringRef ext = llvm::sys::path::extension(outputPath.getValue());
    if (ext != ".svg" && ext != ".png")
      break;
    // Render through Graphviz.
    auto dotProgram = llvm::sys::findProgramByName("dot");
    if (!dotProgram)
      return fail("rendering " + outputPath + " needs Graphviz's 'dot', which "
                  "is not installed; write the graph with -o FILE.dot instead");
    llvm::SmallString<128> graph;
    if (std::error_code ec =
            llvm::sys::fs::createTemporaryFile("pipec", "dot", graph))
      return fail("cannot create a temporary file: " + ec.message());
    {
      std::error_code ec;
      llvm::raw_fd_ostream file(graph, ec);
      if (ec)
        return fail("cannot write " + graph.str().str() + ": " + ec.message());
      file << text;
    }
    std::string format = "-T" + ext.drop_front().str();
    std::string outFlag = "-o" + outputPath.getValue();
    llvm::StringRef args[] = {*dotProgram, format, outFlag, graph};
    std::string error;
    int status = llvm::sys::ExecuteAndWait(*dotProgram, args, std::nullopt, {},
                                           0, 0, &error);
    llvm::sys::fs::remove(graph);
    if (status != 0)
      return fail("Graphviz's dot failed on the graph" +
                  (error.empty() ? "" : ": " + error));
    return 0;
  }
  case Emit::Aot: {
    if (outputPath == "-")
      return fail("--emit=aot needs -o DIR for the header and the source");
    if (!noKernelImages)
      for (pipert::Plan &plan : plans)
        if (pipert::Status s = pipec::addKernelImages(plan, gpuArch); !s.ok())
          return fail(s.message());
    llvm::StringRef stem = llvm::sys::path::stem(inputFile.getValue());
    if (stem.empty() || stem == "-")
      stem = "pipeline";
    pipec::AotSources sources = pipec::emitAot(
        plans, (stem + ".h").str(), cppNamespace,
        llvm::sys::path::filename(inputFile.getValue()).str());
    if (std::error_code ec = llvm::sys::fs::create_directories(outputPath))
      return fail("cannot create '" + outputPath + "': " + ec.message());
    for (auto [ext, content] :
         {std::pair<const char *, std::string *>{".h", &sources.header},
          {".cpp", &sources.source}}) {
      llvm::SmallString<256> path(outputPath.getValue());
      llvm::sys::path::append(path, stem + ext);
      std::string fileError;
      auto out = openOutputFile(path, &fileError);
      if (!out)
        return fail(fileError);
      out->os() << *content;
      out->keep();
    }
    return 0;
  }
  default:
    break;
  }
  return failed(writeOutput(text)) ? 1 : 0;
}
