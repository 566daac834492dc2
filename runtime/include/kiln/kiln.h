/* Kiln runtime: the public C API (C99) for loading and running engine files.
 *
 * Every fallible call returns a kiln_status. NULL means success and costs no
 * allocation; anything else is an error object the caller owns and releases
 * with kiln_status_free. The runtime never aborts the process and never lets a
 * C++ exception escape through this API.
 *
 * Objects:
 *  - kiln_engine: a loaded and fully verified engine file. Immutable and safe
 *    to share between threads. Loading touches no GPU: it works (and verifies)
 *    on a machine without a CUDA driver.
 *  - kiln_context: what one thread needs to run an engine on one GPU: the
 *    activation arena, default input/output buffers, the captured CUDA graph.
 *    Use a context from one thread at a time. Weights and kernel modules are
 *    uploaded once per (engine, device) and shared by all its contexts.
 *    A context keeps its engine's data alive, so the two can be freed in
 *    either order.
 *
 * Typical use:
 *
 *   kiln_engine *engine; kiln_context *ctx;
 *   kiln_status s = kiln_engine_load("model.engine", &engine);
 *   if (!s) s = kiln_context_create(engine, 0, &ctx);
 *   if (!s) s = kiln_copy_input_from_host(ctx, "x", x, sizeof x, NULL);
 *   if (!s) s = kiln_run(ctx, NULL);
 *   if (!s) s = kiln_copy_output_to_host(ctx, "y", y, sizeof y, NULL);
 *   if (s) { fprintf(stderr, "%s\n", kiln_status_message(s));
 * kiln_status_free(s); }
 *
 * Environment:
 *   KILN_CUDA_DRIVER_LIBRARY  file to dlopen instead of "libcuda.so.1".
 *   KILN_CUDA_GRAPHS=0        never capture static plans into CUDA graphs
 *                             (read when a context is created).
 */
#ifndef KILN_KILN_H
#define KILN_KILN_H

#include <stddef.h>
#include <stdint.h>

#if defined(_WIN32)
#define KILN_API
#else
#define KILN_API __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Status                                                                   */
/* ------------------------------------------------------------------------ */

typedef enum kiln_code {
  KILN_OK = 0,
  KILN_INVALID_ARGUMENT = 1,   /* a NULL pointer, an unknown name, a bad size */
  KILN_NOT_FOUND = 2,          /* the engine file does not exist */
  KILN_IO_ERROR = 3,           /* the engine file cannot be read */
  KILN_INVALID_ENGINE = 4,     /* corrupt or inconsistent engine: rebuild it */
  KILN_UNSUPPORTED_ENGINE = 5, /* engine format newer than this runtime */
  KILN_NO_DEVICE = 6,          /* no CUDA driver or no such GPU */
  KILN_INCOMPATIBLE_DEVICE = 7, /* the GPU cannot run this engine (arch) */
  KILN_DEVICE_ERROR = 8,        /* a CUDA call failed */
  KILN_OUT_OF_MEMORY = 9,       /* host or device allocation failed */
  KILN_UNIMPLEMENTED = 10,      /* a feature this runtime does not have yet */
  KILN_INTERNAL = 11            /* a bug in Kiln */
} kiln_code;

/* NULL is success. */
typedef struct kiln_status_t *kiln_status;

/* KILN_OK for NULL. */
KILN_API kiln_code kiln_status_code(kiln_status status);
/* The message; "ok" for NULL. Valid until kiln_status_free. Never NULL. */
KILN_API const char *kiln_status_message(kiln_status status);
/* Frees a status; NULL is fine. */
KILN_API void kiln_status_free(kiln_status status);
/* "KILN_INVALID_ENGINE" etc.; "KILN_UNKNOWN" for values not listed above. */
KILN_API const char *kiln_code_name(kiln_code code);

/* "0.1.0": the Kiln release this runtime is. */
KILN_API const char *kiln_runtime_version(void);
/* The engine format version this runtime reads (KILN_ENGINE_FORMAT_VERSION). */
KILN_API uint32_t kiln_runtime_engine_format_version(void);

/* ------------------------------------------------------------------------ */
/* Engines                                                                  */
/* ------------------------------------------------------------------------ */

typedef enum kiln_dtype {
  KILN_DTYPE_INVALID = 0,
  KILN_DTYPE_F32 = 1,
  KILN_DTYPE_F16 = 2,
  KILN_DTYPE_BF16 = 3,
  KILN_DTYPE_F64 = 4,
  KILN_DTYPE_I8 = 5,
  KILN_DTYPE_I16 = 6,
  KILN_DTYPE_I32 = 7,
  KILN_DTYPE_I64 = 8,
  KILN_DTYPE_U8 = 9,
  KILN_DTYPE_U16 = 10,
  KILN_DTYPE_U32 = 11,
  KILN_DTYPE_U64 = 12,
  KILN_DTYPE_BOOL = 13, /* one byte per element */
  KILN_DTYPE_F8E4M3 = 14,
  KILN_DTYPE_F8E5M2 = 15
} kiln_dtype;

/* "f32", "bf16", ...; "invalid" for values not listed above. */
KILN_API const char *kiln_dtype_name(kiln_dtype dtype);
/* The inverse of kiln_dtype_name; KILN_DTYPE_INVALID for other names and NULL. */
KILN_API kiln_dtype kiln_dtype_from_name(const char *name);
/* Bytes per element; 0 for KILN_DTYPE_INVALID and unknown values. */
KILN_API size_t kiln_dtype_size(kiln_dtype dtype);

typedef struct kiln_engine_t kiln_engine;

/* Reads and verifies an engine file. On success *engine owns the file's bytes;
 * on failure *engine is NULL and the status says what is wrong. */
KILN_API kiln_status kiln_engine_load(const char *path, kiln_engine **engine);
/* Same, from memory; the bytes are copied, so `data` may be freed after. */
KILN_API kiln_status kiln_engine_load_from_memory(const void *data, size_t size,
                                                  kiln_engine **engine);
/* NULL is fine. Contexts created from the engine stay usable. */
KILN_API void kiln_engine_free(kiln_engine *engine);

/* An input or output. Pointers stay valid while the engine lives. */
typedef struct kiln_tensor_info {
  const char *name;
  kiln_dtype dtype;
  size_t rank;         /* number of dimensions; 0 for a scalar */
  const int64_t *dims; /* `rank` dimensions, outermost first */
  size_t size_bytes;   /* product(dims) * kiln_dtype_size(dtype) */
} kiln_tensor_info;

KILN_API size_t kiln_engine_num_inputs(const kiln_engine *engine);
KILN_API size_t kiln_engine_num_outputs(const kiln_engine *engine);
/* KILN_INVALID_ARGUMENT when index >= the count. */
KILN_API kiln_status kiln_engine_input_info(const kiln_engine *engine,
                                            size_t index,
                                            kiln_tensor_info *info);
KILN_API kiln_status kiln_engine_output_info(const kiln_engine *engine,
                                             size_t index,
                                             kiln_tensor_info *info);
/* Looks a name up among inputs, then outputs. *is_input is 1 for an input.
 * KILN_INVALID_ARGUMENT, listing the names there are, when absent. */
KILN_API kiln_status kiln_engine_find_tensor(const kiln_engine *engine,
                                             const char *name, int *is_input,
                                             size_t *index);
/* "sm_90" etc. */
KILN_API const char *kiln_engine_arch(const kiln_engine *engine);
/* The compiler version recorded in the engine header. */
KILN_API const char *kiln_engine_compiler_version(const kiln_engine *engine);
KILN_API uint32_t kiln_engine_format_version(const kiln_engine *engine);
/* Tensor-parallel ranks (1 for a single-GPU engine). */
KILN_API uint32_t kiln_engine_num_ranks(const kiln_engine *engine);
/* Provenance strings; "" when the compiler recorded none. */
KILN_API const char *kiln_engine_model_sha256(const kiln_engine *engine);
KILN_API const char *kiln_engine_compile_flags(const kiln_engine *engine);
KILN_API const char *kiln_engine_tuning_cache_hash(const kiln_engine *engine);

/* ------------------------------------------------------------------------ */
/* Devices and contexts                                                     */
/* ------------------------------------------------------------------------ */

/* A CUDA stream (CUstream / cudaStream_t); NULL is the legacy default stream.
 */
typedef struct CUstream_st *kiln_stream;

/* Number of CUDA GPUs. KILN_NO_DEVICE when no CUDA driver can be loaded. */
KILN_API kiln_status kiln_device_count(int *count);

typedef struct kiln_context_t kiln_context;

/* Creates a context for rank 0 on CUDA device `device`. The first context of
 * an engine on a device loads its kernel modules and uploads its weights. */
KILN_API kiln_status kiln_context_create(const kiln_engine *engine, int device,
                                         kiln_context **context);
/* Same for a tensor-parallel rank. Engines with more than one rank need
 * collectives, which this runtime does not run yet: KILN_UNIMPLEMENTED. */
KILN_API kiln_status kiln_context_create_for_rank(const kiln_engine *engine,
                                                  int device, uint32_t rank,
                                                  kiln_context **context);
/* Waits for nothing: the caller makes sure no kiln_run on the context is still
 * executing on the GPU. NULL is fine. */
KILN_API void kiln_context_free(kiln_context *context);

/* Every input and output has a default device buffer owned by the context.
 * kiln_bind makes the input or output `name` use caller memory instead:
 * `device_ptr` must be CUDA device (or managed) memory of at least
 * `size_bytes` >= the tensor's size, 16-byte aligned, valid until unbound or
 * the context is freed. A NULL device_ptr restores the default buffer. A
 * changed binding re-captures the context's CUDA graph on the next run. */
KILN_API kiln_status kiln_bind(kiln_context *context, const char *name,
                               void *device_ptr, size_t size_bytes);
/* The device address an input or output currently uses (bound or default). */
KILN_API kiln_status kiln_tensor_device_ptr(kiln_context *context,
                                            const char *name,
                                            void **device_ptr);
/* Copies exactly the tensor's size_bytes from host memory into the input's
 * current buffer on `stream`, and waits for the copy, so `host` may be reused
 * when it returns. `size_bytes` must equal the tensor's size. */
KILN_API kiln_status kiln_copy_input_from_host(kiln_context *context,
                                               const char *name,
                                               const void *host,
                                               size_t size_bytes,
                                               kiln_stream stream);
/* Copies an output to host memory on `stream` after the work already queued
 * there (a kiln_run) and waits for it. `size_bytes` must equal the size. */
KILN_API kiln_status kiln_copy_output_to_host(kiln_context *context,
                                              const char *name, void *host,
                                              size_t size_bytes,
                                              kiln_stream stream);
/* Enqueues the whole plan on `stream` and returns without waiting. A static
 * plan is captured into a CUDA graph on its first run (and after a binding
 * changed) and replayed; when `stream` is itself being captured, kernels are
 * launched one by one into the caller's capture instead. */
KILN_API kiln_status kiln_run(kiln_context *context, kiln_stream stream);
/* Waits for all work on `stream` (convenience for callers without CUDA). */
KILN_API kiln_status kiln_stream_synchronize(kiln_context *context,
                                             kiln_stream stream);
/* 1 when the last kiln_run replayed a CUDA graph, else 0. */
KILN_API int kiln_context_uses_graph(const kiln_context *context);

/* ------------------------------------------------------------------------ */
/* Timing and profiles                                                      */
/* ------------------------------------------------------------------------ */

/* One step of rank 0's launch order, as the compiler described it. */
typedef struct {
  const char *name;  /* the kernel-dialect op (for messages) */
  const char *entry; /* the __global__ function */
  const char *nodes; /* ONNX nodes the kernel covers, ", " separated; "" if unknown */
  uint64_t bytes;    /* bytes of its operands, each read or written once */
  uint64_t flops;    /* arithmetic operations (2 per multiply-add); 0 if not counted */
  uint32_t grid[3];
  uint32_t block[3];
  uint32_t dynamic_shared_bytes;
} kiln_launch_info;

KILN_API size_t kiln_engine_num_launches(const kiln_engine *engine);
KILN_API kiln_status kiln_engine_launch_info(const kiln_engine *engine,
                                             size_t step,
                                             kiln_launch_info *info);

/* Runs the engine `runs` times on `stream` as kiln_run does, each run between
 * two CUDA events and waited for before the next starts; times_ms[i] is run
 * i's elapsed time between its events. Warm up with kiln_run first. */
KILN_API kiln_status kiln_time_runs(kiln_context *context, kiln_stream stream,
                                    size_t runs, float *times_ms);

/* As kiln_time_runs, but each of the `samples` timings covers `batch` runs
 * enqueued back to back between its two events (the way a model's kernels
 * follow each other in a stream); times_ms[i] is sample i's elapsed time
 * divided by `batch`. The runs' launch latency then overlaps the previous
 * run's work, which a single run between two events cannot show (a 10 us
 * product measures its launch as much as its kernel). batch = 1 is
 * kiln_time_runs; batch = 0 is an error. */
KILN_API kiln_status kiln_time_run_batches(kiln_context *context,
                                           kiln_stream stream, size_t samples,
                                           size_t batch, float *times_ms);

/* Launches the plan kernel by kernel (no CUDA graph) `repeats` times with a
 * CUDA event after every launch; launch_ms[i] is the median over the repeats
 * of step i's time (from the event before it to the one after it).
 * `num_launches` must equal kiln_engine_num_launches. */
KILN_API kiln_status kiln_profile_launches(kiln_context *context,
                                           kiln_stream stream, size_t repeats,
                                           float *launch_ms,
                                           size_t num_launches);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* KILN_KILN_H */
