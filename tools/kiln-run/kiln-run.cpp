//===- kiln-run.cpp - Run a Kiln engine (in the spirit of trtexec) --------===//
//
// kiln-run model.engine [--inputs in.npz] [--seed S] [--outputs out.npz]
//          [--compare ref.npz --rtol R --atol A] [--bench N] [--warmup W]
//          [--device N] [--profile trace.json [--profile-runs R]]
//
// Runs the engine through the runtime's C API. Inputs missing from
// --inputs are generated from --seed (floats uniform in [-1, 1), integers in
// [0, 10), bools 0/1), never zeros. --bench times N runs after --warmup runs
// and prints the median, p90, p99, min and max latency and the throughput;
// each run is timed with CUDA events around it and waited for before the
// next (the way PyTorch's side of bench/ times a call). --profile launches the
// plan kernel by kernel R times (default 20) with an event after each launch,
// writes a Chrome trace (chrome://tracing, Perfetto) of one inference from
// the median times, and prints the kernels sorted by time with their share,
// their ONNX nodes and their achieved GB/s or TFLOP/s.
//
//===----------------------------------------------------------------------===//
#include "kiln/kiln.h"
#include "support/npy/Npy.h"

#include <algorithm>
#include <chrono>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

struct Options {
  std::string engine, inputs, outputs, compare, saveInputs;
  uint64_t seed = 0;
  double rtol = 1e-3, atol = 1e-5;
  /// --max-rel: per output, max |err| <= maxRel * max |ref| (instead of the
  /// per-element rtol/atol); negative: not given.
  double maxRel = -1;
  int bench = 0, warmup = 10, device = 0;
  /// --bench-batch: runs per timed sample, back to back.
  int benchBatch = 1;
  std::string profile;
  int profileRuns = 20;
};

void usage() {
  std::printf(
      "usage: kiln-run model.engine [options]\n"
      "  --inputs FILE.npz     inputs by name (missing ones are generated)\n"
      "  --seed N              seed for generated inputs (default 0)\n"
      "  --save-inputs F.npz   write the inputs used\n"
      "  --outputs FILE.npz    write the outputs\n"
      "  --compare REF.npz     compare outputs with REF (by name)\n"
      "  --rtol R --atol A     tolerances for --compare (default 1e-3, 1e-5)\n"
      "  --max-rel T           --compare by output: max |err| <= T * max |ref| (instead of\n"
      "                        rtol/atol; for reduced-precision engines such as tf32)\n"
      "  --bench N             time N runs (after --warmup W, default 10)\n"
      "  --bench-batch B       time N samples of B runs each, enqueued back to back\n"
      "                        between two events (per-run time: the sample's / B)\n"
      "  --device N            CUDA device (default 0)\n"
      "  --profile TRACE.json  per-kernel times: Chrome trace + table\n"
      "  --profile-runs R      repeats the profile's medians come from (default 20)\n"
      "  --version, --help\n");
}

int fail(const std::string &msg, int code = 1) {
  std::fprintf(stderr, "kiln-run: error: %s\n", msg.c_str());
  return code;
}

/// Takes ownership of a status; returns true on success.
bool ok(kiln_status s, std::string &msg) {
  if (!s)
    return true;
  msg = kiln_status_message(s);
  kiln_status_free(s);
  return false;
}

const char *npyDescr(kiln_dtype t) {
  switch (t) {
  case KILN_DTYPE_F32: return "f4";
  case KILN_DTYPE_F16: return "f2";
  case KILN_DTYPE_F64: return "f8";
  case KILN_DTYPE_I8: return "i1";
  case KILN_DTYPE_I16: return "i2";
  case KILN_DTYPE_I32: return "i4";
  case KILN_DTYPE_I64: return "i8";
  case KILN_DTYPE_U8: return "u1";
  case KILN_DTYPE_U16: return "u2";
  case KILN_DTYPE_U32: return "u4";
  case KILN_DTYPE_U64: return "u8";
  case KILN_DTYPE_BOOL: return "b1";
  case KILN_DTYPE_BF16: return "V2"; // raw bfloat16 bits, as ml_dtypes saves them
  default: return nullptr;
  }
}

uint64_t splitmix(uint64_t &s) {
  uint64_t z = (s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

uint16_t floatToHalf(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000, exp = (x >> 23) & 0xff, man = x & 0x7fffff;
  if (exp == 0xff)
    return sign | 0x7c00 | (man ? 0x200 : 0);
  int e = (int)exp - 127 + 15;
  if (e >= 31)
    return sign | 0x7c00;
  if (e <= 0) {
    if (e < -10)
      return sign;
    man |= 0x800000;
    uint32_t shift = 14 - e, half = man >> shift, rem = man & ((1u << shift) - 1);
    uint32_t mid = 1u << (shift - 1);
    if (rem > mid || (rem == mid && (half & 1)))
      ++half;
    return sign | half;
  }
  uint32_t half = sign | (e << 10) | (man >> 13), rem = man & 0x1fff;
  if (rem > 0x1000 || (rem == 0x1000 && (half & 1)))
    ++half;
  return half;
}

float halfToFloat(uint16_t h) {
  uint32_t sign = (h & 0x8000u) << 16, exp = (h >> 10) & 0x1f, man = h & 0x3ff, x;
  if (exp == 0) {
    if (!man) {
      x = sign;
    } else {
      int e = -1;
      do { ++e; man <<= 1; } while (!(man & 0x400));
      x = sign | ((127 - 15 - e) << 23) | ((man & 0x3ff) << 13);
    }
  } else if (exp == 31) {
    x = sign | 0x7f800000 | (man << 13);
  } else {
    x = sign | ((exp - 15 + 127) << 23) | (man << 13);
  }
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

/// A deterministic non-zero random tensor.
kiln::npy::Array randomArray(const kiln_tensor_info &info, uint64_t seed) {
  kiln::npy::Array a;
  a.dtype = npyDescr(info.dtype);
  a.shape.assign(info.dims, info.dims + info.rank);
  a.data.resize(info.size_bytes);
  size_t n = info.size_bytes / std::max<size_t>(kiln_dtype_size(info.dtype), 1);
  uint64_t s = seed * 0x100000001B3ull + 12345;
  for (size_t i = 0; i < n; ++i) {
    uint64_t r = splitmix(s);
    double u = (double)(r >> 11) / 9007199254740992.0 * 2.0 - 1.0;
    uint8_t *p = a.data.data();
    switch (info.dtype) {
    case KILN_DTYPE_F32: { float f = (float)u; std::memcpy(p + 4 * i, &f, 4); break; }
    case KILN_DTYPE_F64: std::memcpy(p + 8 * i, &u, 8); break;
    case KILN_DTYPE_F16: { uint16_t h = floatToHalf((float)u); std::memcpy(p + 2 * i, &h, 2); break; }
    case KILN_DTYPE_BF16: { float f = (float)u; uint32_t x; std::memcpy(&x, &f, 4); uint16_t b = x >> 16; std::memcpy(p + 2 * i, &b, 2); break; }
    case KILN_DTYPE_BOOL: p[i] = r & 1; break;
    default: {
      int64_t v = (int64_t)(r % 10);
      std::memcpy(p + kiln_dtype_size(info.dtype) * i, &v, kiln_dtype_size(info.dtype));
    }
    }
  }
  return a;
}

double elementAsDouble(const kiln::npy::Array &a, size_t i) {
  const uint8_t *p = a.data.data();
  const std::string &d = a.dtype;
  auto ld = [&](auto v) { std::memcpy(&v, p + sizeof(v) * i, sizeof(v)); return (double)v; };
  if (d == "f4") return ld(float());
  if (d == "f8") return ld(double());
  if (d == "f2") { uint16_t h; std::memcpy(&h, p + 2 * i, 2); return halfToFloat(h); }
  if (d == "V2") { uint16_t b; std::memcpy(&b, p + 2 * i, 2); uint32_t x = (uint32_t)b << 16; float f; std::memcpy(&f, &x, 4); return f; }
  if (d == "i8") return ld(int64_t());
  if (d == "i4") return ld(int32_t());
  if (d == "i2") return ld(int16_t());
  if (d == "i1") return ld(int8_t());
  if (d == "u8") return ld(uint64_t());
  if (d == "u4") return ld(uint32_t());
  if (d == "u2") return ld(uint16_t());
  if (d == "u1" || d == "b1") return p[i];
  return NAN;
}

double percentile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  size_t idx = std::min(v.size() - 1, (size_t)std::ceil(q * v.size()) - (q > 0 ? 1 : 0));
  return v[idx];
}


std::string jsonEscape(const std::string &s) {
  std::string out;
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += (char)c;
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += (char)c;
    }
  }
  return out;
}

/// --profile: per-launch medians, a Chrome trace of one inference and the
/// kernels sorted by time.
bool writeProfile(kiln_engine *engine, kiln_context *ctx, const Options &o, std::string &msg) {
  size_t n = kiln_engine_num_launches(engine);
  std::vector<kiln_launch_info> info(n);
  for (size_t i = 0; i < n; ++i)
    if (!ok(kiln_engine_launch_info(engine, i, &info[i]), msg))
      return false;
  std::vector<float> ms(n);
  // One untimed pass loads everything the kernel-by-kernel path touches.
  if (!ok(kiln_profile_launches(ctx, nullptr, 1, ms.data(), n), msg) ||
      !ok(kiln_profile_launches(ctx, nullptr, (size_t)o.profileRuns, ms.data(), n), msg))
    return false;
  double total = 0;
  for (float t : ms)
    total += t;

  FILE *f = std::fopen(o.profile.c_str(), "w");
  if (!f) {
    msg = "cannot write '" + o.profile + "': " + std::strerror(errno);
    return false;
  }
  std::fprintf(f, "{\"displayTimeUnit\": \"ms\", \"otherData\": {\"engine\": \"%s\", \"repeats\": %d, "
               "\"total_ms\": %.6f}, \"traceEvents\": [\n",
               jsonEscape(o.engine).c_str(), o.profileRuns, total);
  std::fprintf(f, "{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 0, \"args\": {\"name\": \"%s\"}},\n"
               "{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 0, \"tid\": 0, \"args\": {\"name\": \"GPU stream\"}}",
               jsonEscape(o.engine).c_str());
  double ts = 0;
  for (size_t i = 0; i < n; ++i) {
    double us = ms[i] * 1000.0, sec = ms[i] / 1000.0;
    std::fprintf(f, ",\n{\"name\": \"%s\", \"cat\": \"kernel\", \"ph\": \"X\", \"pid\": 0, \"tid\": 0, "
                 "\"ts\": %.3f, \"dur\": %.3f, \"args\": {\"step\": %zu, \"entry\": \"%s\", \"nodes\": \"%s\", "
                 "\"bytes\": %llu, \"flops\": %llu, \"GB/s\": %.1f, \"TFLOP/s\": %.2f, "
                 "\"grid\": [%u, %u, %u], \"block\": [%u, %u, %u], \"smem\": %u}}",
                 jsonEscape(info[i].name).c_str(), ts, us, i, jsonEscape(info[i].entry).c_str(),
                 jsonEscape(info[i].nodes).c_str(), (unsigned long long)info[i].bytes,
                 (unsigned long long)info[i].flops, sec > 0 ? info[i].bytes / sec / 1e9 : 0.0,
                 sec > 0 ? info[i].flops / sec / 1e12 : 0.0, info[i].grid[0], info[i].grid[1],
                 info[i].grid[2], info[i].block[0], info[i].block[1], info[i].block[2],
                 info[i].dynamic_shared_bytes);
    ts += us;
  }
  std::fprintf(f, "\n]}\n");
  if (std::fclose(f) != 0) {
    msg = "cannot write '" + o.profile + "': " + std::strerror(errno);
    return false;
  }

  std::vector<size_t> order(n);
  for (size_t i = 0; i < n; ++i)
    order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return ms[a] > ms[b]; });
  std::printf("profile: %zu kernels, %.4f ms kernel by kernel (median of %d; the CUDA graph's run has no "
              "launch gaps); trace in %s\n",
              n, total, o.profileRuns, o.profile.c_str());
  std::printf("%5s %10s %6s %6s %9s %8s  %-28s %s\n", "step", "ms", "share", "cum", "GB/s", "TFLOP/s",
              "kernel", "onnx nodes");
  double cum = 0;
  for (size_t i : order) {
    double sec = ms[i] / 1000.0;
    cum += ms[i];
    std::string nodes = info[i].nodes;
    if (nodes.size() > 80)
      nodes = nodes.substr(0, 77) + "...";
    char gbs[32] = "-", tfs[32] = "-";
    if (sec > 0 && info[i].bytes)
      std::snprintf(gbs, sizeof gbs, "%.1f", info[i].bytes / sec / 1e9);
    if (sec > 0 && info[i].flops)
      std::snprintf(tfs, sizeof tfs, "%.2f", info[i].flops / sec / 1e12);
    std::printf("%5zu %10.4f %5.1f%% %5.1f%% %9s %8s  %-28s %s\n", i, ms[i],
                total > 0 ? 100.0 * ms[i] / total : 0.0, total > 0 ? 100.0 * cum / total : 0.0, gbs, tfs,
                info[i].name, nodes.c_str());
  }
  return true;
}

} // namespace

int main(int argc, char **argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&](const char *flag) -> const char * {
      if (i + 1 >= argc) {
        fail(std::string(flag) + " needs a value");
        std::exit(1);
      }
      return argv[++i];
    };
    if (a == "--help" || a == "-h") { usage(); return 0; }
    if (a == "--version") { std::printf("kiln-run (Kiln) runtime %s\n", kiln_runtime_version()); return 0; }
    if (a == "--inputs") o.inputs = next("--inputs");
    else if (a == "--outputs") o.outputs = next("--outputs");
    else if (a == "--compare") o.compare = next("--compare");
    else if (a == "--save-inputs") o.saveInputs = next("--save-inputs");
    else if (a == "--seed") o.seed = std::strtoull(next("--seed"), nullptr, 10);
    else if (a == "--rtol") o.rtol = std::atof(next("--rtol"));
    else if (a == "--atol") o.atol = std::atof(next("--atol"));
    else if (a == "--max-rel") {
      o.maxRel = std::atof(next("--max-rel"));
      if (!(o.maxRel >= 0))
        return fail("--max-rel takes a non-negative number");
    }
    else if (a == "--bench") o.bench = std::atoi(next("--bench"));
    else if (a == "--bench-batch") {
      o.benchBatch = std::atoi(next("--bench-batch"));
      if (o.benchBatch < 1)
        return fail("--bench-batch takes a count of at least 1");
    }
    else if (a == "--warmup") o.warmup = std::atoi(next("--warmup"));
    else if (a == "--device") o.device = std::atoi(next("--device"));
    else if (a == "--profile") o.profile = next("--profile");
    else if (a == "--profile-runs") o.profileRuns = std::atoi(next("--profile-runs"));
    else if (!a.empty() && a[0] == '-') return fail("unknown option '" + a + "' (see --help)");
    else if (o.engine.empty()) o.engine = a;
    else return fail("more than one engine given");
  }
  if (o.engine.empty()) {
    usage();
    return 1;
  }
  std::string msg;
  kiln_engine *engine = nullptr;
  if (!ok(kiln_engine_load(o.engine.c_str(), &engine), msg))
    return fail(msg);

  kiln::npy::NamedArrays given, used;
  if (!o.inputs.empty() && !kiln::npy::readNpz(o.inputs, given, msg))
    return fail(msg);

  kiln_context *ctx = nullptr;
  if (!ok(kiln_context_create(engine, o.device, &ctx), msg)) {
    kiln_engine_free(engine);
    return fail(msg, 2);
  }

  for (size_t i = 0; i < kiln_engine_num_inputs(engine); ++i) {
    kiln_tensor_info info;
    if (!ok(kiln_engine_input_info(engine, i, &info), msg))
      return fail(msg);
    if (!npyDescr(info.dtype))
      return fail(std::string("input '") + info.name + "' has dtype " + kiln_dtype_name(info.dtype) +
                  ", which kiln-run cannot feed");
    auto it = std::find_if(given.begin(), given.end(), [&](auto &p) { return p.first == info.name; });
    kiln::npy::Array array;
    if (it != given.end()) {
      array = it->second;
      bool shapeOk = array.shape == std::vector<int64_t>(info.dims, info.dims + info.rank);
      if (array.dtype != npyDescr(info.dtype) || !shapeOk)
        return fail(o.inputs + ": input '" + info.name + "' has dtype " + array.dtype +
                    " and the wrong shape or dtype for the engine's " + kiln_dtype_name(info.dtype) + " input");
    } else {
      array = randomArray(info, o.seed + i);
    }
    if (!ok(kiln_copy_input_from_host(ctx, info.name, array.data.data(), array.data.size(), nullptr), msg))
      return fail(msg);
    used.emplace_back(info.name, std::move(array));
  }
  if (!o.saveInputs.empty() && !kiln::npy::writeNpz(o.saveInputs, used, msg))
    return fail(msg);

  if (!ok(kiln_run(ctx, nullptr), msg) || !ok(kiln_stream_synchronize(ctx, nullptr), msg))
    return fail(msg);

  kiln::npy::NamedArrays outs;
  for (size_t i = 0; i < kiln_engine_num_outputs(engine); ++i) {
    kiln_tensor_info info;
    if (!ok(kiln_engine_output_info(engine, i, &info), msg))
      return fail(msg);
    kiln::npy::Array a;
    a.dtype = npyDescr(info.dtype) ? npyDescr(info.dtype) : "u1";
    a.shape.assign(info.dims, info.dims + info.rank);
    a.data.resize(info.size_bytes);
    if (!ok(kiln_copy_output_to_host(ctx, info.name, a.data.data(), a.data.size(), nullptr), msg))
      return fail(msg);
    outs.emplace_back(info.name, std::move(a));
  }
  if (!o.outputs.empty() && !kiln::npy::writeNpz(o.outputs, outs, msg))
    return fail(msg);

  int status = 0;
  if (!o.compare.empty()) {
    kiln::npy::NamedArrays ref;
    if (!kiln::npy::readNpz(o.compare, ref, msg))
      return fail(msg);
    for (auto &[name, got] : outs) {
      auto it = std::find_if(ref.begin(), ref.end(), [&](auto &p) { return p.first == name; });
      if (it == ref.end()) {
        std::printf("FAIL %s: not in %s\n", name.c_str(), o.compare.c_str());
        status = 1;
        continue;
      }
      const auto &want = it->second;
      if (want.shape != got.shape) {
        std::printf("FAIL %s: shape differs from the reference\n", name.c_str());
        status = 1;
        continue;
      }
      size_t n = got.numElements(), bad = 0;
      double maxErr = 0, maxRef = 0;
      for (size_t k = 0; k < n; ++k) {
        double g = elementAsDouble(got, k), w = elementAsDouble(want, k);
        if ((std::isnan(g) && std::isnan(w)) || g == w) {
          // Equal (infinities of one sign included: inf - inf is NaN).
          maxRef = std::max(maxRef, std::isinf(w) ? 0.0 : std::fabs(w));
          continue;
        }
        double err = std::fabs(g - w);
        if (!(err <= o.atol + o.rtol * std::fabs(w)))
          ++bad;
        maxErr = std::max(maxErr, std::isnan(err) ? INFINITY : err);
        maxRef = std::max(maxRef, std::fabs(w));
      }
      if (o.maxRel >= 0) {
        const bool pass = maxErr <= o.maxRel * maxRef;
        std::printf("%s %s: max abs err %.3g (max |ref| %.3g): %.3g of max |ref|, max-rel %g\n",
                    pass ? "PASS" : "FAIL", name.c_str(), maxErr, maxRef,
                    maxRef > 0 ? maxErr / maxRef : maxErr, o.maxRel);
        if (!pass)
          status = 1;
        continue;
      }
      std::printf("%s %s: max abs err %.3g (max |ref| %.3g), %zu of %zu elements outside rtol %g atol %g\n",
                  bad ? "FAIL" : "PASS", name.c_str(), maxErr, maxRef, bad, n, o.rtol, o.atol);
      if (bad)
        status = 1;
    }
  }

  if (o.bench > 0) {
    for (int i = 0; i < o.warmup; ++i)
      if (!ok(kiln_run(ctx, nullptr), msg))
        return fail(msg);
    if (!ok(kiln_stream_synchronize(ctx, nullptr), msg))
      return fail(msg);
    std::vector<float> times(o.bench);
    auto t0 = std::chrono::steady_clock::now();
    if (!ok(o.benchBatch == 1
                ? kiln_time_runs(ctx, nullptr, times.size(), times.data())
                : kiln_time_run_batches(ctx, nullptr, times.size(),
                                        static_cast<size_t>(o.benchBatch),
                                        times.data()),
            msg))
      return fail(msg);
    double wall = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    std::vector<double> ms(times.begin(), times.end());
    double med = percentile(ms, 0.5);
    const double total = static_cast<double>(o.bench) * o.benchBatch;
    if (o.benchBatch == 1)
      std::printf("bench: %d runs (after %d warm-up), CUDA-event latency ms: ", o.bench, o.warmup);
    else
      std::printf("bench: %d samples of %d back-to-back runs (after %d warm-up), CUDA-event ms per run: ",
                  o.bench, o.benchBatch, o.warmup);
    std::printf("median %.4f  p90 %.4f  p99 %.4f  "
                "min %.4f  max %.4f; throughput %.1f inferences/s (host clock, %.4f ms per run with "
                "synchronization); cuda graph %s\n",
                med, percentile(ms, 0.9), percentile(ms, 0.99),
                *std::min_element(ms.begin(), ms.end()), *std::max_element(ms.begin(), ms.end()),
                1000.0 * total / wall, wall / total, kiln_context_uses_graph(ctx) ? "on" : "off");
  }
  if (!o.profile.empty()) {
    if (o.profileRuns < 1)
      return fail("--profile-runs must be at least 1");
    if (!writeProfile(engine, ctx, o, msg))
      return fail(msg);
  }
  kiln_context_free(ctx);
  kiln_engine_free(engine);
  return status;
}
