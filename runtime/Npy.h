//===- Npy.h - NumPy .npy files ---------------------------------*- C++ -*-===//
//
// Reads .npy files (versions 1.0 to 3.0) and writes them (1.0, or 2.0 when
// the header passes 64 KiB) of little-endian, C-ordered arrays of the
// dtypes Pipe supports, so that pipelines run on data that NumPy, PyTorch
// or OpenCV wrote, and their results go back the same way.
//
//===----------------------------------------------------------------------===//

#ifndef PIPE_RUNTIME_NPY_H
#define PIPE_RUNTIME_NPY_H

#include "runtime/Status.h"
#include "runtime/Tensor.h"

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace pipert {

Result<HostTensor> readNpy(const std::string &path);

/// Writes `tensor` to `path`: to a temporary name beside it, then renamed
/// over it, so that a failure (a full disk, a dtype NumPy lacks) leaves
/// whatever was at `path` as it was.
Status writeNpy(const std::string &path, const HostTensor &tensor);

/// Writes `tensor` as a .npy file at `path` itself (created or truncated;
/// a failure can leave it partly written), naming `shownPath` in errors:
/// the step of writeNpyFiles that writes one temporary.
Status writeNpyInPlace(const std::string &path, const std::string &shownPath,
                       const HostTensor &tensor);

/// Writes several files all or nothing: every tensor to a temporary name
/// first; only when all are written are they renamed over their paths.
/// On a failure no path is touched and the temporaries are removed.
Status writeNpyFiles(
    const std::vector<std::pair<std::string, const HostTensor *>> &files);

/// The same for any files: `write(temporary)` writes one file (its path
/// beside it) to the temporary name it is given.
Status writeFilesAllOrNothing(
    const std::vector<std::pair<std::string,
                                std::function<Status(const std::string &)>>>
        &files);

} // namespace pipert

#endif // PIPE_RUNTIME_NPY_H
