/* Loads a Kiln engine and runs it through the C API with random inputs.
 *
 *   run_engine model.engine [device] [iterations]
 *
 * Prints the engine's inputs and outputs, fills every input with random
 * values of its dtype, runs the engine `iterations` times (default 1), and
 * prints each output's first values and a checksum. Exit status: 0 on
 * success, 1 on any error, 2 on a usage error. Needs no CUDA headers or
 * libraries: everything goes through libkiln_runtime.
 */
#include <kiln/kiln.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Prints and frees a status; returns 1 when it was an error. */
static int failed(kiln_status status, const char *what) {
  if (!status)
    return 0;
  fprintf(stderr, "run_engine: %s: %s [%s]\n", what,
          kiln_status_message(status),
          kiln_code_name(kiln_status_code(status)));
  kiln_status_free(status);
  return 1;
}

static void print_tensor(const char *kind, const kiln_tensor_info *info) {
  size_t d;
  printf("  %s %-20s %s[", kind, info->name, kiln_dtype_name(info->dtype));
  for (d = 0; d < info->rank; ++d)
    printf("%s%lld", d ? "x" : "", (long long)info->dims[d]);
  printf("] %zu bytes\n", info->size_bytes);
}

/* xorshift64*: reproducible random numbers without libc's rand(). */
static unsigned long long rng_state = 0x9E3779B97F4A7C15ull;
static unsigned long long next_random(void) {
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return rng_state * 0x2545F4914F6CDD1Dull;
}
/* Uniform in [-1, 1). */
static float random_float(void) {
  return (float)((next_random() >> 40) / 8388608.0 - 1.0);
}

/* IEEE half and bfloat16 bits of a float (round to nearest even). */
static unsigned short to_bf16(float f) {
  unsigned int u;
  memcpy(&u, &f, sizeof u);
  return (unsigned short)((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
}
static unsigned short to_f16(float f) {
  unsigned int u, sign, mant;
  int exp;
  memcpy(&u, &f, sizeof u);
  sign = (u >> 16) & 0x8000u;
  exp = (int)((u >> 23) & 0xFFu) - 127 + 15;
  mant = u & 0x7FFFFFu;
  if (exp <= 0) /* |f| < 2^-14: flush to zero, fine for random inputs */
    return (unsigned short)sign;
  if (exp >= 31)
    return (unsigned short)(sign | 0x7C00u);
  mant += 0x0FFFu + ((mant >> 13) & 1u);
  if (mant & 0x800000u) {
    mant = 0;
    ++exp;
  }
  return (unsigned short)(sign | ((unsigned int)exp << 10) | (mant >> 13));
}

static void fill_random(unsigned char *p, const kiln_tensor_info *info) {
  size_t elem = kiln_dtype_size(info->dtype), n, i;
  n = elem ? info->size_bytes / elem : 0;
  for (i = 0; i < n; ++i) {
    float f = random_float();
    switch (info->dtype) {
    case KILN_DTYPE_F32:
      memcpy(p + 4 * i, &f, 4);
      break;
    case KILN_DTYPE_F64: {
      double d = f;
      memcpy(p + 8 * i, &d, 8);
      break;
    }
    case KILN_DTYPE_F16: {
      unsigned short h = to_f16(f);
      memcpy(p + 2 * i, &h, 2);
      break;
    }
    case KILN_DTYPE_BF16: {
      unsigned short h = to_bf16(f);
      memcpy(p + 2 * i, &h, 2);
      break;
    }
    case KILN_DTYPE_BOOL:
      p[i] = (unsigned char)(next_random() & 1u);
      break;
    default: {
      /* Integers (and fp8): small non-negative values, safe as indices. */
      unsigned long long v = next_random() % 4u;
      memcpy(p + elem * i, &v, elem); /* little-endian low bytes */
      break;
    }
    }
  }
}

/* First elements as numbers where the dtype is a common one. */
static void print_values(const unsigned char *p, const kiln_tensor_info *info) {
  size_t elem = kiln_dtype_size(info->dtype), n, i;
  unsigned long long sum = 0;
  n = elem ? info->size_bytes / elem : 0;
  for (i = 0; i < info->size_bytes; ++i)
    sum = sum * 31u + p[i];
  printf("  %s:", info->name);
  for (i = 0; i < n && i < 6; ++i) {
    if (info->dtype == KILN_DTYPE_F32) {
      float f;
      memcpy(&f, p + 4 * i, 4);
      printf(" %g", f);
    } else if (info->dtype == KILN_DTYPE_F64) {
      double d;
      memcpy(&d, p + 8 * i, 8);
      printf(" %g", d);
    } else if (info->dtype == KILN_DTYPE_I32) {
      int v;
      memcpy(&v, p + 4 * i, 4);
      printf(" %d", v);
    } else if (info->dtype == KILN_DTYPE_I64) {
      long long v;
      memcpy(&v, p + 8 * i, 8);
      printf(" %lld", v);
    } else {
      printf(" 0x%02x", p[i * elem]);
    }
  }
  printf("%s  (checksum %016llx)\n", n > 6 ? " ..." : "", sum);
}

int main(int argc, char **argv) {
  kiln_engine *engine = NULL;
  kiln_context *ctx = NULL;
  int device = 0, iterations = 1, status = 1, it;
  size_t i;

  if (argc < 2 || argc > 4) {
    fprintf(stderr, "usage: %s model.engine [device] [iterations]\n", argv[0]);
    return 2;
  }
  if (argc > 2)
    device = atoi(argv[2]);
  if (argc > 3)
    iterations = atoi(argv[3]);

  if (failed(kiln_engine_load(argv[1], &engine), "loading the engine"))
    return 1;
  printf("engine %s: %s, compiler %s, format v%u, %u rank(s)\n", argv[1],
         kiln_engine_arch(engine), kiln_engine_compiler_version(engine),
         kiln_engine_format_version(engine), kiln_engine_num_ranks(engine));
  for (i = 0; i < kiln_engine_num_inputs(engine); ++i) {
    kiln_tensor_info info;
    if (failed(kiln_engine_input_info(engine, i, &info), "input info"))
      goto done;
    print_tensor("input ", &info);
  }
  for (i = 0; i < kiln_engine_num_outputs(engine); ++i) {
    kiln_tensor_info info;
    if (failed(kiln_engine_output_info(engine, i, &info), "output info"))
      goto done;
    print_tensor("output", &info);
  }

  if (failed(kiln_context_create(engine, device, &ctx), "creating a context"))
    goto done;

  for (i = 0; i < kiln_engine_num_inputs(engine); ++i) {
    kiln_tensor_info info;
    unsigned char *host;
    kiln_status s;
    if (failed(kiln_engine_input_info(engine, i, &info), "input info"))
      goto done;
    host = (unsigned char *)malloc(info.size_bytes ? info.size_bytes : 1);
    if (!host) {
      fprintf(stderr, "run_engine: out of memory\n");
      goto done;
    }
    fill_random(host, &info);
    s = kiln_copy_input_from_host(ctx, info.name, host, info.size_bytes, NULL);
    free(host);
    if (failed(s, "copying an input"))
      goto done;
  }

  for (it = 0; it < iterations; ++it)
    if (failed(kiln_run(ctx, NULL), "running"))
      goto done;
  printf("ran %d time(s)%s; outputs:\n", iterations,
         kiln_context_uses_graph(ctx) ? " as a CUDA graph" : "");

  for (i = 0; i < kiln_engine_num_outputs(engine); ++i) {
    kiln_tensor_info info;
    unsigned char *host;
    kiln_status s;
    if (failed(kiln_engine_output_info(engine, i, &info), "output info"))
      goto done;
    host = (unsigned char *)malloc(info.size_bytes ? info.size_bytes : 1);
    if (!host) {
      fprintf(stderr, "run_engine: out of memory\n");
      goto done;
    }
    s = kiln_copy_output_to_host(ctx, info.name, host, info.size_bytes, NULL);
    if (!failed(s, "copying an output"))
      print_values(host, &info);
    else
      it = -1;
    free(host);
    if (it < 0)
      goto done;
  }
  status = 0;

done:
  kiln_context_free(ctx);
  kiln_engine_free(engine);
  return status;
}
