// Executor: loaded engines, their per-device state, and execution contexts.
//
// Ownership: a kiln_engine and every kiln_context made from it share one
// EngineData (std::shared_ptr), so either may be freed first. EngineData is
// immutable after loading except for `devices`, the per-GPU state (modules,
// functions, uploaded weights) built lazily under `mutex` by the first context
// on each GPU and shared by later ones. A Context is used by one thread at a
// time and owns the activation arena, the default I/O buffers and its graph.
#ifndef KILN_RUNTIME_EXECUTOR_H
#define KILN_RUNTIME_EXECUTOR_H

#include "kiln/internal/cublaslt.h"
#include "kiln/internal/device.h"
#include "kiln/internal/engine_reader.h"

#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace kiln::rt {

/// An input or output as the C API describes it.
struct TensorInfo {
  std::string name;
  kiln_dtype dtype;
  std::vector<int64_t> dims;
  uint64_t bytes;
};

/// Kernels and weights of one rank's plan on one device; immutable once built.
struct RankState {
  std::vector<CUfunction> functions; ///< by kernel index
  /// Device address of each plan buffer of kind Weights (0 for other kinds).
  std::vector<CUdeviceptr> weightAddress;
};

/// What one engine holds on one GPU.
struct DeviceState {
  const cuda::Driver *driver = nullptr;
  int ordinal = -1;
  CUdevice device = 0;
  CUcontext context = nullptr; ///< the device's primary context, retained
  int ccMajor = 0, ccMinor = 0;
  int maxSharedOptin =
      0;            ///< bytes of dynamic shared memory a block may opt in to
  std::string name; ///< "NVIDIA H200"
  /// Modules by (cubin section, PTX section) of the image they came from.
  std::map<std::pair<int32_t, int32_t>, CUmodule> modules;
  std::map<uint32_t, CUdeviceptr>
      weights; ///< device copy of each weight section
  std::vector<std::unique_ptr<RankState>> ranks;

  ~DeviceState();
  /// "device 0 (NVIDIA H200, sm_90)", for messages.
  std::string describe() const;
};

struct AlignedFree {
  void operator()(uint8_t *p) const { std::free(p); }
};

struct EngineData {
  std::unique_ptr<uint8_t, AlignedFree> bytes; ///< the whole file
  size_t size = 0;
  EngineView view; ///< points into `bytes`
  std::vector<TensorInfo> inputs, outputs;
  std::string arch, compilerVersion;
  std::string modelSha256, compileFlags, tuningCacheHash;

  std::mutex mutex; ///< guards `devices`
  std::map<int, std::unique_ptr<DeviceState>> devices;

  /// Verifies `bytes` (size bytes, 256-byte aligned, owned from now on).
  static kiln_status create(std::unique_ptr<uint8_t, AlignedFree> bytes,
                            size_t size, const std::string &source,
                            std::shared_ptr<EngineData> &out);

  /// The device state for `ordinal` with `rank` prepared (modules loaded,
  /// functions resolved and checked, weights uploaded). Thread-safe.
  kiln_status prepare(const cuda::Driver &driver, int ordinal, uint32_t rank,
                      DeviceState *&device, const RankState *&rankState);

  /// Looks a tensor up by name; false when absent.
  bool find(const char *name, bool &isInput, size_t &index) const;
  /// "'x', 'mask' (inputs); 'y' (outputs)" for messages about unknown names.
  std::string tensorNames() const;

private:
  kiln_status prepareRank(DeviceState &dev, uint32_t rank,
                          std::unique_ptr<RankState> &out);
  kiln_status loadImage(DeviceState &dev, const fb::Image &image,
                        uint32_t imageIndex, CUmodule &module);
};

/// One run of a kernel: resolved function, geometry and parameter storage.
struct Launch {
  uint32_t kernel;
  CUfunction function;
  /// Launched with programmatic stream serialization: the kernel waits for
  /// its predecessor itself (engine flag), on an sm_90+ GPU whose driver has
  /// cuLaunchKernelEx, and $KILN_PDL=1 asks for it (off by default: on the
  /// H200 BERT and GPT-2 at batch 1 ran 7% and 3% slower with it).
  bool programmatic = false;
};

/// Parameters of one kernel, stored once per context. CUDA reads each
/// parameter through a pointer; every slot is 8 bytes and little-endian, so
/// a pointer to a slot also points to the low bytes a narrower scalar needs.
struct KernelArgs {
  std::vector<uint64_t> slots;
  /// Encoded TensorMap arguments (Kernel.tensor_maps order), re-encoded
  /// whenever a buffer address changes.
  std::vector<CUtensorMap> maps;
  /// pointers[i] = &slots[i], or &maps[j] for a TensorMap argument.
  std::vector<void *> pointers;
};

class Context {
public:
  ~Context();

  static kiln_status create(std::shared_ptr<EngineData> engine, int device,
                            uint32_t rank, std::unique_ptr<Context> &out);

  kiln_status bind(const char *name, void *devicePtr, size_t sizeBytes);
  kiln_status devicePointer(const char *name, CUdeviceptr &out);
  kiln_status copyIn(const char *name, const void *host, size_t bytes,
                     CUstream stream);
  kiln_status copyOut(const char *name, void *host, size_t bytes,
                      CUstream stream);
  kiln_status run(CUstream stream);
  kiln_status synchronize(CUstream stream);
  bool usedGraph() const { return lastRunUsedGraph_; }
  size_t numLaunches() const { return launches_.size(); }
  /// kiln_time_runs / kiln_profile_launches.
  kiln_status timeRuns(CUstream stream, size_t runs, size_t batch, float *ms);
  kiln_status profileLaunches(CUstream stream, size_t repeats, float *ms);

private:
  Context() = default;
  kiln_status lookup(const char *name, const char *function, bool &isInput,
                     size_t &index) const;
  /// Index into ioDefault_/ioBound_: inputs first, then outputs.
  size_t ioSlot(bool isInput, size_t index) const;
  CUdeviceptr ioAddress(size_t slot) const;
  /// Recomputes every buffer address and kernel parameter slot.
  /// Recomputes every argument from the buffer addresses (and encodes the
  /// tensor maps, which can fail).
  kiln_status updateArguments();
  kiln_status launchAll(CUstream stream);
  kiln_status launchStep(CUstream stream, size_t step);
  /// The library calls' handle, workspace and prepared matmuls (after
  /// updateArguments: the heuristic sees the operands' addresses).
  kiln_status prepareLibraryCalls();
  kiln_status runLibraryCall(CUstream stream, size_t step);
  kiln_status capture();
  void dropGraph();
  std::string where() const;

  std::shared_ptr<EngineData> engine_;
  const cuda::Driver *driver_ = nullptr;
  DeviceState *device_ = nullptr;
  const RankState *rankState_ = nullptr;
  const fb::Plan *plan_ = nullptr;
  uint32_t rank_ = 0;

  CUdeviceptr arena_ = 0;
  /// The plan's kernel workspace (Workspace buffers), zeroed when made.
  CUdeviceptr kernelWorkspace_ = 0;
  CUdeviceptr ioBlock_ = 0; ///< one allocation holding every default I/O buffer
  std::vector<CUdeviceptr> ioDefault_, ioBound_;
  std::vector<CUdeviceptr> bufferAddress_; ///< by plan buffer
  std::vector<KernelArgs> args_;           ///< by kernel
  std::vector<Launch> launches_;           ///< in launch order

  /// cuBLASLt, when the plan has library calls (fb::LibraryCall).
  const cublaslt::Library *cublasLt_ = nullptr;
  cublasLtHandle_t cublasLtHandle_ = nullptr;
  std::vector<std::unique_ptr<cublaslt::Matmul>> matmuls_; ///< by kernel
  CUdeviceptr workspace_ = 0; ///< the largest call's workspace, shared

  bool useGraphs_ = true;
  bool lastRunUsedGraph_ = false;
  CUstream captureStream_ = nullptr;
  CUgraphExec graph_ = nullptr;
};

} // namespace kiln::rt

#endif // KILN_RUNTIME_EXECUTOR_H
