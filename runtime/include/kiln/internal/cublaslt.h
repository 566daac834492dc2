// cuBLASLt layer: the vendor matmul library, opened with dlopen at run time.
//
// Internal API of the runtime for Kiln's own libraries and tools (link
// KilnRuntimeInternal): not installed, not part of the C API, no stable ABI.
//
// Nothing links against cuBLASLt. An engine whose plan has a library call
// (fb::LibraryCall, chosen by the autotuner where it measured fastest) opens
// $KILN_CUBLASLT_LIBRARY (default "libcublasLt.so.13") when a context is
// created; every other engine never touches it. The autotuner's workers run
// the same calls through this layer, so what was measured is what runs.
// <cublasLt.h> is used for types and function signatures only.
#ifndef KILN_INTERNAL_CUBLASLT_H
#define KILN_INTERNAL_CUBLASLT_H

#include "kiln/engine_writer.h"
#include "kiln/internal/device.h"

#include <cublasLt.h>

#include <memory>
#include <string>

namespace kiln::rt::cublaslt {

#define KILN_CUBLASLT_FUNCTIONS(X)                                             \
  X(cublasLtCreate)                                                            \
  X(cublasLtDestroy)                                                           \
  X(cublasLtGetVersion)                                                        \
  X(cublasLtGetStatusString)                                                   \
  X(cublasLtMatmulDescCreate)                                                  \
  X(cublasLtMatmulDescDestroy)                                                 \
  X(cublasLtMatmulDescSetAttribute)                                            \
  X(cublasLtMatrixLayoutCreate)                                                \
  X(cublasLtMatrixLayoutDestroy)                                               \
  X(cublasLtMatrixLayoutSetAttribute)                                          \
  X(cublasLtMatmulPreferenceCreate)                                            \
  X(cublasLtMatmulPreferenceDestroy)                                           \
  X(cublasLtMatmulPreferenceSetAttribute)                                      \
  X(cublasLtMatmulAlgoGetHeuristic)                                            \
  X(cublasLtMatmul)

/// The loaded library: one function pointer per API function used.
struct Library {
  std::string name;   ///< what was dlopen'ed
  size_t version = 0; ///< cublasLtGetVersion(), e.g. 130000
#define KILN_CUBLASLT_MEMBER(name) decltype(&::name) name = nullptr;
  KILN_CUBLASLT_FUNCTIONS(KILN_CUBLASLT_MEMBER)
#undef KILN_CUBLASLT_MEMBER
};

/// The library named by $KILN_CUBLASLT_LIBRARY (default "libcublasLt.so.13"),
/// loaded once per process and name. KILN_UNIMPLEMENTED naming the library
/// and `what` (the engine and launch that need it) when it cannot be loaded.
kiln_status getLibrary(const Library *&library, const std::string &what);

/// The library's default name, for messages.
const char *defaultLibraryName();

/// The matmul a call describes: engine::LibraryCallSpec (kiln/engine_writer.h),
/// the plain form the codegen, the autotuner's workers and the executor share.
using MatmulDesc = engine::LibraryCallSpec;

/// "CUBLAS_STATUS_NOT_SUPPORTED" and the like.
std::string statusText(const Library &library, cublasStatus_t status);

/// A prepared call: descriptors and the chosen algorithm. Owns cuBLASLt
/// objects; made and used with the GPU context current.
class Matmul {
public:
  ~Matmul();
  Matmul(const Matmul &) = delete;
  Matmul &operator=(const Matmul &) = delete;

  /// Builds the descriptors and asks the heuristic for up to 8 algorithms
  /// (within `workspaceBytes`, the workspace the caller passes to run; 0 for
  /// none) and takes answer desc.algo. With `exact`
  /// false an answer that no longer exists (another library version) falls
  /// back to the first; with `exact` true (the autotuner) it is an error.
  /// `biasAddress` is the bias (its address sets the alignment the
  /// heuristic assumes), 0 when the epilogue has none.
  static kiln_status create(const Library &library, cublasLtHandle_t handle,
                            const MatmulDesc &desc, uint64_t workspaceBytes,
                            CUdeviceptr biasAddress, bool exact,
                            std::unique_ptr<Matmul> &out,
                            const std::string &what);

  /// Enqueues the call on `stream`. `c` is read only when beta != 0 (0: D).
  /// Returns cuBLASLt's status (no message is built on the launch path;
  /// the caller names the launch when it is not CUBLAS_STATUS_SUCCESS).
  cublasStatus_t run(cublasLtHandle_t handle, CUdeviceptr a, CUdeviceptr b,
                     CUdeviceptr c, CUdeviceptr d, CUdeviceptr bias,
                     CUdeviceptr workspace, CUstream stream) const;

  /// How many algorithms the heuristic offered; the one used.
  int offered() const { return offered_; }
  uint32_t algoUsed() const { return algoUsed_; }

private:
  Matmul() = default;
  const Library *lib_ = nullptr;
  MatmulDesc desc_;
  uint64_t workspaceBytes_ = 0;
  cublasLtMatmulDesc_t op_ = nullptr;
  cublasLtMatrixLayout_t a_ = nullptr, b_ = nullptr, c_ = nullptr;
  cublasLtMatmulAlgo_t algo_{};
  int offered_ = 0;
  uint32_t algoUsed_ = 0;
  mutable CUdeviceptr bias_ = 0; ///< the bias pointer set on op_
};

} // namespace kiln::rt::cublaslt

#endif // KILN_INTERNAL_CUBLASLT_H
