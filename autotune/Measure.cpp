//===- Measure.cpp - Inputs, checks, budget and workers for tuning --------===//
#include "autotune/Measure.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <poll.h>
#include <random>
#include <signal.h>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

namespace kiln::autotune {

namespace {

bool isSignedIntDtype(const std::string &d) {
  return d == "i8" || d == "i16" || d == "i32" || d == "i64";
}
bool isUnsignedIntDtype(const std::string &d) {
  return d == "ui8" || d == "ui16" || d == "ui32" || d == "ui64";
}

// IEEE half and bfloat16 from a float that is exactly representable in them
// (the generator draws multiples of 1/256, which both hold exactly).
uint16_t toHalf(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  const uint32_t sign = (x >> 16) & 0x8000u;
  int32_t exp = int32_t((x >> 23) & 0xff) - 127 + 15;
  uint32_t mant = x & 0x7fffffu;
  if (exp <= 0) // |f| >= 1/256 stays normal in half (min normal 2^-14)
    return uint16_t(sign);
  return uint16_t(sign | (uint32_t(exp) << 10) | (mant >> 13));
}
uint16_t toBf16(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  return uint16_t(x >> 16);
}
float fromHalf(uint16_t h) {
  const uint32_t sign = uint32_t(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1f, mant = h & 0x3ffu;
  uint32_t x;
  if (exp == 0x1f) {
    x = sign | 0x7f800000u | (mant << 13);
  } else if (exp == 0) {
    if (mant == 0) {
      x = sign;
    } else {
      float v = std::ldexp(float(mant), -24);
      std::memcpy(&x, &v, 4);
      x |= sign;
    }
  } else {
    x = sign | ((exp - 15 + 127) << 23) | (mant << 13);
  }
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}
float fromBf16(uint16_t b) {
  uint32_t x = uint32_t(b) << 16;
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

template <typename T>
void storeInts(std::vector<char> &out, size_t n, std::mt19937_64 &rng,
               int64_t lo, int64_t hi) {
  std::uniform_int_distribution<int64_t> dist(lo, hi - 1);
  for (size_t i = 0; i < n; ++i) {
    T v = static_cast<T>(dist(rng));
    std::memcpy(out.data() + i * sizeof(T), &v, sizeof(T));
  }
}

} // namespace

unsigned dtypeSize(const std::string &d) {
  if (d == "i1" || d == "i8" || d == "ui8")
    return 1;
  if (d == "f16" || d == "bf16" || d == "i16" || d == "ui16")
    return 2;
  if (d == "f32" || d == "i32" || d == "ui32")
    return 4;
  if (d == "f64" || d == "i64" || d == "ui64")
    return 8;
  return 0;
}

/// The float elements of `ref` and `got` decoded by `at(bytes, i)`:
/// within outputTolerance(dtype) x max |ref| where finite, NaN where NaN,
/// equal otherwise.
template <typename At>
static bool floatsMatch(const std::string &dtype, const std::vector<char> &ref,
                        const std::vector<char> &got, size_t n, At at,
                        std::string &why) {
  double maxRef = 0;
  for (size_t i = 0; i < n; ++i) {
    const double r = at(ref.data(), i);
    if (std::isfinite(r))
      maxRef = std::max(maxRef, std::fabs(r));
  }
  const double tol = outputTolerance(dtype) * maxRef;
  for (size_t i = 0; i < n; ++i) {
    const double r = at(ref.data(), i), g = at(got.data(), i);
    bool ok = std::isfinite(r) ? std::isfinite(g) && std::fabs(g - r) <= tol
                               : (std::isnan(r) ? std::isnan(g) : g == r);
    if (!ok) {
      std::ostringstream os;
      os << "element " << i << " is " << g << ", reference " << r
         << " (tolerance " << tol << ")";
      why = os.str();
      return false;
    }
  }
  return true;
}

bool isFloatDtype(const std::string &d) {
  return d == "f16" || d == "bf16" || d == "f32" || d == "f64";
}

bool fillInput(const BufferDesc &desc, uint64_t seed, std::vector<char> &out,
               std::string &error) {
  const unsigned size = dtypeSize(desc.dtype);
  out.clear();
  if (!size || desc.elements < 0) {
    error = "cannot generate inputs of dtype '" + desc.dtype + "'";
    return false;
  }
  const size_t n = size_t(desc.elements);
  out.resize(n * size);
  std::mt19937_64 rng(seed);
  if (isFloatDtype(desc.dtype)) {
    // Multiples of 1/256 in [1/16, 1] with a random sign: exact in every
    // float type, never zero, no NaN or inf.
    std::uniform_int_distribution<int> mag(16, 256), sign(0, 1);
    for (size_t i = 0; i < n; ++i) {
      float f = float(mag(rng)) / 256.0f * (sign(rng) ? -1.0f : 1.0f);
      if (desc.dtype == "f16" || desc.dtype == "bf16") {
        uint16_t h = desc.dtype == "f16" ? toHalf(f) : toBf16(f);
        std::memcpy(out.data() + 2 * i, &h, 2);
      } else if (desc.dtype == "f32") {
        std::memcpy(out.data() + 4 * i, &f, 4);
      } else {
        double d = f;
        std::memcpy(out.data() + 8 * i, &d, 8);
      }
    }
    return true;
  }
  int64_t lo = desc.intLo, hi = desc.intHi;
  if (desc.dtype == "i1") {
    lo = std::max<int64_t>(lo, 0);
    hi = std::min<int64_t>(hi, 2);
  }
  if (isUnsignedIntDtype(desc.dtype))
    lo = std::max<int64_t>(lo, 0);
  const int64_t maxOf =
      size == 8
          ? INT64_MAX
          : (int64_t(1) << (8 * size - (isSignedIntDtype(desc.dtype) ? 1 : 0)));
  if (size < 8)
    hi = std::min(hi, maxOf);
  if (hi <= lo) {
    error = "no " + desc.dtype + " value in [" + std::to_string(desc.intLo) +
            ", " + std::to_string(desc.intHi) + ")";
    return false;
  }
  switch (size) {
  case 1:
    storeInts<uint8_t>(out, n, rng, lo, hi);
    break;
  case 2:
    storeInts<uint16_t>(out, n, rng, lo, hi);
    break;
  case 4:
    storeInts<uint32_t>(out, n, rng, lo, hi);
    break;
  default:
    storeInts<uint64_t>(out, n, rng, lo, hi);
  }
  return true;
}

double outputTolerance(const std::string &dtype) {
  if (dtype == "f16" || dtype == "bf16")
    return 1e-2;
  if (dtype == "f32")
    return 1e-4;
  if (dtype == "f64")
    return 1e-8;
  return 0;
}

bool outputsMatch(const std::string &dtype, const std::vector<char> &ref,
                  const std::vector<char> &got, std::string &why) {
  if (ref.size() != got.size()) {
    why = "output has " + std::to_string(got.size()) + " bytes, reference " +
          std::to_string(ref.size());
    return false;
  }
  if (!isFloatDtype(dtype)) {
    if (std::memcmp(ref.data(), got.data(), ref.size()) == 0)
      return true;
    size_t i = 0;
    while (ref[i] == got[i])
      ++i;
    why = "byte " + std::to_string(i) + " differs from the reference";
    return false;
  }
  // The dtype resolved outside the loops (f16 through a table): decoding
  // each element by its dtype's name made the check of one BERT 32x128 FFN1
  // candidate (12.6M outputs) take most of its 0.75 s (H100, call25).
  const size_t n = ref.size() / dtypeSize(dtype);
  auto bits16 = [](const char *p, size_t i) {
    uint16_t v;
    std::memcpy(&v, p + 2 * i, 2);
    return v;
  };
  if (dtype == "f16") {
    static const std::vector<float> table = [] {
      std::vector<float> t(65536);
      for (uint32_t v = 0; v < 65536; ++v)
        t[v] = fromHalf(uint16_t(v));
      return t;
    }();
    return floatsMatch(
        dtype, ref, got, n,
        [&](const char *p, size_t i) { return table[bits16(p, i)]; }, why);
  }
  if (dtype == "bf16")
    return floatsMatch(
        dtype, ref, got, n,
        [&](const char *p, size_t i) { return fromBf16(bits16(p, i)); }, why);
  if (dtype == "f32")
    return floatsMatch(
        dtype, ref, got, n,
        [](const char *p, size_t i) {
          float v;
          std::memcpy(&v, p + 4 * i, 4);
          return v;
        },
        why);
  return floatsMatch(
      dtype, ref, got, n,
      [](const char *p, size_t i) {
        double v;
        std::memcpy(&v, p + 8 * i, 8);
        return v;
      },
      why);
}

TuneBudget::TuneBudget(double seconds, Clock clock)
    : seconds_(seconds), clock_(std::move(clock)), start_(clock_()) {}

double TuneBudget::steadySeconds() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

namespace {
int gWorkerFd = -1;
} // namespace

int workerOutputFd() { return gWorkerFd; }

WorkerEnd runWorker(
    const std::function<void(const std::function<void(const std::string &)> &)>
        &body,
    double timeoutSeconds, std::vector<std::string> &lines) {
  WorkerEnd end;
  int fds[2];
  if (::pipe(fds) != 0) {
    end.kind = WorkerEnd::ForkFailed;
    end.detail = std::string("pipe failed: ") + std::strerror(errno);
    return end;
  }
  std::fflush(nullptr);
  pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    end.kind = WorkerEnd::ForkFailed;
    end.detail = std::string("fork failed: ") + std::strerror(errno);
    return end;
  }
  if (pid == 0) {
    ::close(fds[0]);
    const int out = fds[1];
    gWorkerFd = out;
    body([out](const std::string &line) {
      std::string l = line + "\n";
      const char *p = l.data();
      size_t left = l.size();
      while (left) {
        ssize_t w = ::write(out, p, left);
        if (w < 0 && errno == EINTR)
          continue;
        if (w <= 0)
          ::_exit(3);
        p += w;
        left -= size_t(w);
      }
    });
    ::close(out);
    ::_exit(0);
  }
  ::close(fds[1]);
  std::string pending;
  bool timedOut = false;
  for (;;) {
    pollfd pfd{fds[0], POLLIN, 0};
    int r = ::poll(&pfd, 1, int(timeoutSeconds * 1000));
    if (r < 0 && errno == EINTR)
      continue;
    if (r == 0) {
      timedOut = true;
      ::kill(pid, SIGKILL);
      break;
    }
    char buf[4096];
    ssize_t n = ::read(fds[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      break;
    pending.append(buf, size_t(n));
    size_t nl;
    while ((nl = pending.find('\n')) != std::string::npos) {
      lines.push_back(pending.substr(0, nl));
      pending.erase(0, nl + 1);
    }
  }
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (timedOut) {
    end.kind = WorkerEnd::TimedOut;
    end.detail =
        "no answer within " + std::to_string(timeoutSeconds) + " s (killed)";
  } else if (WIFSIGNALED(status)) {
    end.kind = WorkerEnd::Crashed;
    end.code = WTERMSIG(status);
    end.detail = "killed by signal " + std::to_string(end.code) + " (" +
                 ::strsignal(end.code) + ")";
  } else if (WIFEXITED(status) && WEXITSTATUS(status) != 0) {
    end.kind = WorkerEnd::Crashed;
    end.code = WEXITSTATUS(status);
    end.detail = "exited with status " + std::to_string(end.code);
  }
  return end;
}

std::vector<Measurement> measureInWorkers(size_t candidates,
                                          const WorkerBody &body,
                                          double timeoutSeconds,
                                          std::vector<std::string> &notes) {
  std::vector<Measurement> out(candidates);
  std::vector<bool> done(candidates, false);
  for (size_t i = 0; i < candidates; ++i)
    out[i].candidate = i;
  std::vector<size_t> todo;
  for (size_t i = 0; i < candidates; ++i)
    todo.push_back(i);
  auto fail = [&](size_t i, const std::string &why) {
    done[i] = true;
    out[i].medianMs.reset();
    notes.push_back("candidate " + std::to_string(i) + ": " + why);
  };
  while (!todo.empty()) {
    std::vector<std::string> lines;
    WorkerEnd end = runWorker(
        [&](const std::function<void(const std::string &)> &emit) {
          body(todo, emit);
        },
        timeoutSeconds, lines);
    for (const std::string &line : lines) {
      std::istringstream is(line);
      size_t index = 0;
      std::string verdict;
      if (!(is >> index >> verdict) || index >= candidates || done[index])
        continue;
      if (verdict == "ok") {
        double ms = 0;
        if (is >> ms && std::isfinite(ms) && ms >= 0) {
          done[index] = true;
          out[index].medianMs = ms;
          continue;
        }
      }
      std::string why;
      std::getline(is, why);
      const size_t start = why.find_first_not_of(' ');
      fail(index, start == std::string::npos ? "failed" : why.substr(start));
    }
    if (done[0] && !out[0].medianMs) {
      for (size_t i : todo)
        if (!done[i])
          fail(i, "no reference (candidate 0 failed)");
      break;
    }
    // "bye": the worker stopped on purpose (its context was lost after a
    // candidate it already reported); nothing was in flight.
    const bool bye = !lines.empty() && lines.back() == "bye";
    std::vector<size_t> rest;
    for (size_t i : todo)
      if (!done[i])
        rest.push_back(i);
    if (rest.empty())
      break;
    if (end.kind == WorkerEnd::ForkFailed) {
      for (size_t i : rest)
        fail(i, end.detail);
      break;
    }
    // The first unanswered candidate was in flight: it is the one to blame
    // (a worker that ended cleanly without answering it is blamed too).
    if (bye && end.kind == WorkerEnd::Exited) {
      todo.clear();
      todo.push_back(0);
      for (size_t i : rest)
        if (i != 0)
          todo.push_back(i);
      done[0] = false;
      continue;
    }
    const std::string why = end.kind == WorkerEnd::Exited
                                ? "the worker ended without a result"
                                : "the worker " + end.detail;
    fail(rest.front(), why);
    if (rest.front() == 0) {
      for (size_t i : rest)
        if (!done[i])
          fail(i, "no reference (candidate 0 failed)");
      break;
    }
    rest.erase(rest.begin());
    // Every new worker runs the reference again (its output is the check).
    todo.clear();
    todo.push_back(0);
    todo.insert(todo.end(), rest.begin(), rest.end());
    done[0] = false;
  }
  return out;
}

} // namespace kiln::autotune
