// cuBLASLt layer: loads libcublasLt with dlopen and prepares and runs
// matmuls (fb::LibraryCall).
#include "kiln/internal/cublaslt.h"

#include "Status.h"

#include <cstdlib>
#include <dlfcn.h>
#include <map>
#include <mutex>

namespace kiln::rt::cublaslt {
namespace {

constexpr const char *kDefaultLibrary = "libcublasLt.so.13";

kiln_status loadLibrary(const std::string &name, const std::string &what,
                        std::unique_ptr<Library> &out) {
  void *handle = ::dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char *why = ::dlerror();
    return makeStatus(
        KILN_UNIMPLEMENTED,
        what + " calls cuBLASLt, but " + name +
            " cannot be loaded" +
            (why ? std::string(" (dlopen: ") + why + ")" : "") +
            "; install the CUDA 13 cuBLAS library (or point "
            "KILN_CUBLASLT_LIBRARY at it), or rebuild the engine without "
            "cuBLASLt choices (--autotune=off and no tuning cache that "
            "names path=cublaslt)");
  }
  auto lib = std::make_unique<Library>();
  lib->name = name;
  std::string missing;
#define KILN_CUBLASLT_LOAD(fn)                                                 \
  lib->fn = reinterpret_cast<decltype(lib->fn)>(::dlsym(handle, #fn));         \
  if (!lib->fn)                                                                \
    missing += std::string(missing.empty() ? "" : ", ") + #fn;
  KILN_CUBLASLT_FUNCTIONS(KILN_CUBLASLT_LOAD)
#undef KILN_CUBLASLT_LOAD
  if (!missing.empty())
    return makeStatus(KILN_UNIMPLEMENTED,
                      what + " calls cuBLASLt, but " + name + " lacks " +
                          missing + " (it is not cuBLASLt 13)");
  lib->version = lib->cublasLtGetVersion();
  out = std::move(lib);
  return nullptr;
}

cudaDataType_t dataType(kiln_dtype t) {
  switch (t) {
  case KILN_DTYPE_BF16:
    return CUDA_R_16BF;
  case KILN_DTYPE_F32:
    return CUDA_R_32F;
  default:
    return CUDA_R_16F;
  }
}

cublasLtEpilogue_t epilogueOf(engine::MatmulEpilogue e) {
  switch (e) {
  case engine::MatmulEpilogue::Bias:
    return CUBLASLT_EPILOGUE_BIAS;
  case engine::MatmulEpilogue::Relu:
    return CUBLASLT_EPILOGUE_RELU;
  case engine::MatmulEpilogue::ReluBias:
    return CUBLASLT_EPILOGUE_RELU_BIAS;
  case engine::MatmulEpilogue::GeluTanh:
    return CUBLASLT_EPILOGUE_GELU;
  case engine::MatmulEpilogue::GeluTanhBias:
    return CUBLASLT_EPILOGUE_GELU_BIAS;
  default:
    return CUBLASLT_EPILOGUE_DEFAULT;
  }
}

} // namespace

const char *defaultLibraryName() { return kDefaultLibrary; }

kiln_status getLibrary(const Library *&library, const std::string &what) {
  // Never unloaded, like the driver (Cuda.cpp).
  static std::mutex *mutex = new std::mutex;
  static auto *libraries = new std::map<std::string, std::unique_ptr<Library>>;
  const char *env = std::getenv("KILN_CUBLASLT_LIBRARY");
  std::string name = env && *env ? env : kDefaultLibrary;
  std::lock_guard<std::mutex> lock(*mutex);
  auto it = libraries->find(name);
  if (it == libraries->end()) {
    std::unique_ptr<Library> loaded;
    KILN_RETURN_IF_ERROR(loadLibrary(name, what, loaded));
    it = libraries->emplace(name, std::move(loaded)).first;
  }
  library = it->second.get();
  return nullptr;
}

std::string statusText(const Library &library, cublasStatus_t status) {
  const char *s = library.cublasLtGetStatusString(status);
  return s ? s : format("cublasStatus %d", int(status));
}

Matmul::~Matmul() {
  if (!lib_)
    return;
  if (op_)
    lib_->cublasLtMatmulDescDestroy(op_);
  for (cublasLtMatrixLayout_t l : {a_, b_, c_})
    if (l)
      lib_->cublasLtMatrixLayoutDestroy(l);
}

kiln_status Matmul::create(const Library &lib, cublasLtHandle_t handle,
                           const MatmulDesc &desc, uint64_t workspaceBytes,
                           CUdeviceptr biasAddress, bool exact,
                           std::unique_ptr<Matmul> &out,
                           const std::string &what) {
  std::unique_ptr<Matmul> mm(new Matmul);
  mm->lib_ = &lib;
  mm->desc_ = desc;
  mm->workspaceBytes_ = workspaceBytes;
  cublasStatus_t st = CUBLAS_STATUS_SUCCESS;
  const char *call = "";
  auto check = [&](cublasStatus_t s, const char *name) {
    if (st == CUBLAS_STATUS_SUCCESS && s != CUBLAS_STATUS_SUCCESS) {
      st = s;
      call = name;
    }
  };
  if (desc.dtype != KILN_DTYPE_F16 && desc.dtype != KILN_DTYPE_BF16 &&
      desc.dtype != KILN_DTYPE_F32)
    return makeStatus(KILN_INVALID_ENGINE,
                      format("%s: cuBLASLt matmul of dtype %d; only f16, "
                             "bf16 and f32 are supported",
                             what.c_str(), int(desc.dtype)));
  const cudaDataType_t type = dataType(desc.dtype);
  const cublasComputeType_t compute =
      desc.dtype == KILN_DTYPE_F32 && desc.tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32
                                                : CUBLAS_COMPUTE_32F;
  check(lib.cublasLtMatmulDescCreate(&mm->op_, compute, CUDA_R_32F),
        "cublasLtMatmulDescCreate");
  const cublasOperation_t ta = desc.transA ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t tb = desc.transB ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasLtEpilogue_t ep = epilogueOf(desc.epilogue);
  if (mm->op_) {
    check(lib.cublasLtMatmulDescSetAttribute(
              mm->op_, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta),
          "cublasLtMatmulDescSetAttribute(TRANSA)");
    check(lib.cublasLtMatmulDescSetAttribute(
              mm->op_, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb),
          "cublasLtMatmulDescSetAttribute(TRANSB)");
    check(lib.cublasLtMatmulDescSetAttribute(
              mm->op_, CUBLASLT_MATMUL_DESC_EPILOGUE, &ep, sizeof ep),
          "cublasLtMatmulDescSetAttribute(EPILOGUE)");
    if (engine::matmulEpilogueHasBias(desc.epilogue)) {
      const void *p = reinterpret_cast<const void *>(biasAddress);
      check(lib.cublasLtMatmulDescSetAttribute(
                mm->op_, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &p, sizeof p),
            "cublasLtMatmulDescSetAttribute(BIAS_POINTER)");
      mm->bias_ = biasAddress;
    }
  }
  auto layout = [&](cublasLtMatrixLayout_t &l, uint64_t rows, uint64_t cols,
                    uint64_t ld, uint64_t stride) {
    check(lib.cublasLtMatrixLayoutCreate(&l, type, rows, cols, int64_t(ld)),
          "cublasLtMatrixLayoutCreate");
    if (!l || desc.batch <= 1)
      return;
    const int32_t count = int32_t(desc.batch);
    const int64_t offset = int64_t(stride);
    check(lib.cublasLtMatrixLayoutSetAttribute(
              l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof count),
          "cublasLtMatrixLayoutSetAttribute(BATCH_COUNT)");
    check(lib.cublasLtMatrixLayoutSetAttribute(
              l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &offset,
              sizeof offset),
          "cublasLtMatrixLayoutSetAttribute(STRIDED_BATCH_OFFSET)");
  };
  layout(mm->a_, desc.transA ? desc.k : desc.m, desc.transA ? desc.m : desc.k,
         desc.lda, desc.strideA);
  layout(mm->b_, desc.transB ? desc.n : desc.k, desc.transB ? desc.k : desc.n,
         desc.ldb, desc.strideB);
  layout(mm->c_, desc.m, desc.n, desc.ldc, desc.strideC);

  cublasLtMatmulPreference_t pref = nullptr;
  check(lib.cublasLtMatmulPreferenceCreate(&pref),
        "cublasLtMatmulPreferenceCreate");
  if (pref) {
    const uint64_t ws = workspaceBytes;
    check(lib.cublasLtMatmulPreferenceSetAttribute(
              pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws),
          "cublasLtMatmulPreferenceSetAttribute(MAX_WORKSPACE_BYTES)");
    const uint32_t align = desc.alignment ? desc.alignment : 256;
    for (cublasLtMatmulPreferenceAttributes_t a :
         {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES,
          CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES,
          CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES,
          CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES})
      check(lib.cublasLtMatmulPreferenceSetAttribute(pref, a, &align,
                                                     sizeof align),
            "cublasLtMatmulPreferenceSetAttribute(MIN_ALIGNMENT)");
  }
  constexpr int kAsk = 8;
  cublasLtMatmulHeuristicResult_t results[kAsk] = {};
  int found = 0;
  if (st == CUBLAS_STATUS_SUCCESS)
    check(lib.cublasLtMatmulAlgoGetHeuristic(handle, mm->op_, mm->a_, mm->b_,
                                             mm->c_, mm->c_, pref, kAsk,
                                             results, &found),
          "cublasLtMatmulAlgoGetHeuristic");
  if (pref)
    lib.cublasLtMatmulPreferenceDestroy(pref);
  if (st != CUBLAS_STATUS_SUCCESS)
    return makeStatus(st == CUBLAS_STATUS_ALLOC_FAILED ? KILN_OUT_OF_MEMORY
                                                       : KILN_DEVICE_ERROR,
                      format("%s: %s failed: %s", what.c_str(), call,
                             statusText(lib, st).c_str()));
  // Answers the heuristic offers but could not check are not counted.
  int usable = 0;
  while (usable < found && results[usable].state == CUBLAS_STATUS_SUCCESS)
    ++usable;
  if (usable == 0)
    return makeStatus(KILN_UNIMPLEMENTED,
                      format("%s: cuBLASLt %zu (%s) has no algorithm for "
                             "this matmul (m %llu, n %llu, k %llu, batch %llu, "
                             "%llu bytes of workspace)",
                             what.c_str(), lib.version, lib.name.c_str(),
                             (unsigned long long)desc.m,
                             (unsigned long long)desc.n,
                             (unsigned long long)desc.k,
                             (unsigned long long)desc.batch,
                             (unsigned long long)workspaceBytes));
  uint32_t use = desc.algo;
  if (use >= uint32_t(usable)) {
    if (exact)
      return makeStatus(KILN_INVALID_ARGUMENT,
                        format("%s: cuBLASLt offers %d algorithms, not the "
                               "%u-th",
                               what.c_str(), usable, desc.algo + 1));
    use = 0;
  }
  mm->offered_ = usable;
  mm->algoUsed_ = use;
  mm->algo_ = results[use].algo;
  out = std::move(mm);
  return nullptr;
}

cublasStatus_t Matmul::run(cublasLtHandle_t handle, CUdeviceptr a,
                           CUdeviceptr b, CUdeviceptr c, CUdeviceptr d,
                           CUdeviceptr bias, CUdeviceptr workspace,
                           CUstream stream) const {
  if (engine::matmulEpilogueHasBias(desc_.epilogue) && bias != bias_) {
    const void *p = reinterpret_cast<const void *>(bias);
    cublasStatus_t s = lib_->cublasLtMatmulDescSetAttribute(
        op_, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &p, sizeof p);
    if (s != CUBLAS_STATUS_SUCCESS)
      return s;
    bias_ = bias;
  }
  const float alpha = desc_.alpha, beta = desc_.beta;
  auto ptr = [](CUdeviceptr p) { return reinterpret_cast<void *>(p); };
  return lib_->cublasLtMatmul(
      handle, op_, &alpha, ptr(a), a_, ptr(b), b_, &beta,
      ptr(beta != 0 && c ? c : d), c_, ptr(d), c_, &algo_, ptr(workspace),
      workspace ? workspaceBytes_ : 0,
      reinterpret_cast<cudaStream_t>(stream));
}

} // namespace kiln::rt::cublaslt
