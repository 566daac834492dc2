//===- NvrtcCompiler.cpp - CUDA C++ to cubin and PTX through NVRTC --------===//
#include "compiler/nvrtc/NvrtcCompiler.h"

#include <dlfcn.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <sys/stat.h>
#include <thread>
#include <unordered_map>
#include <unistd.h>

namespace kiln::nvrtc {

namespace {

// The slice of nvrtc.h Kiln uses, declared here so the compiler builds
// without the CUDA toolkit.
typedef int nvrtcResult; // NVRTC_SUCCESS == 0
typedef struct _nvrtcProgram *nvrtcProgram;

struct NvrtcApi {
  const char *(*getErrorString)(nvrtcResult);
  nvrtcResult (*version)(int *, int *);
  nvrtcResult (*createProgram)(nvrtcProgram *, const char *, const char *, int,
                               const char *const *, const char *const *);
  nvrtcResult (*destroyProgram)(nvrtcProgram *);
  nvrtcResult (*compileProgram)(nvrtcProgram, int, const char *const *);
  nvrtcResult (*getPTXSize)(nvrtcProgram, size_t *);
  nvrtcResult (*getPTX)(nvrtcProgram, char *);
  nvrtcResult (*getCUBINSize)(nvrtcProgram, size_t *);
  nvrtcResult (*getCUBIN)(nvrtcProgram, char *);
  nvrtcResult (*getProgramLogSize)(nvrtcProgram, size_t *);
  nvrtcResult (*getProgramLog)(nvrtcProgram, char *);
  std::string versionString;
};

struct Loaded {
  std::unique_ptr<NvrtcApi> api;
  std::string error;
};

const Loaded &loaded() {
  static const Loaded state = [] {
    Loaded l;
    std::vector<std::string> candidates = {"libnvrtc.so.13", "libnvrtc.so"};
    for (const char *var : {"CUDA_HOME", "CUDA_PATH"})
      if (const char *root = std::getenv(var))
        candidates.push_back(std::string(root) + "/lib64/libnvrtc.so.13");
    candidates.push_back("/usr/local/cuda/lib64/libnvrtc.so.13");
    void *handle = nullptr;
    std::string tried;
    for (const std::string &c : candidates) {
      handle = dlopen(c.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (handle)
        break;
      tried += (tried.empty() ? "" : ", ") + c;
    }
    if (!handle) {
      l.error =
          "NVRTC is not available (tried " + tried +
          "): install the CUDA toolkit's NVRTC (libnvrtc.so.13) or put it on "
          "LD_LIBRARY_PATH";
      return l;
    }
    auto api = std::make_unique<NvrtcApi>();
    bool ok = true;
    auto sym = [&](auto &fn, const char *name) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(
          dlsym(handle, name));
      if (!fn) {
        ok = false;
        l.error = std::string("NVRTC library lacks ") + name;
      }
    };
    sym(api->getErrorString, "nvrtcGetErrorString");
    sym(api->version, "nvrtcVersion");
    sym(api->createProgram, "nvrtcCreateProgram");
    sym(api->destroyProgram, "nvrtcDestroyProgram");
    sym(api->compileProgram, "nvrtcCompileProgram");
    sym(api->getPTXSize, "nvrtcGetPTXSize");
    sym(api->getPTX, "nvrtcGetPTX");
    sym(api->getCUBINSize, "nvrtcGetCUBINSize");
    sym(api->getCUBIN, "nvrtcGetCUBIN");
    sym(api->getProgramLogSize, "nvrtcGetProgramLogSize");
    sym(api->getProgramLog, "nvrtcGetProgramLog");
    if (!ok)
      return l;
    int major = 0, minor = 0;
    if (api->version(&major, &minor) != 0) {
      l.error = "nvrtcVersion failed";
      return l;
    }
    api->versionString = std::to_string(major) + "." + std::to_string(minor);
    l.api = std::move(api);
    return l;
  }();
  return state;
}

uint64_t fnv1a(const std::string &s, uint64_t h = 1469598103934665603ull) {
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

struct CacheEntry {
  std::string ptx;
  std::vector<char> cubin;
};

std::mutex cacheMutex;
std::unordered_map<uint64_t, std::shared_ptr<const CacheEntry>> cache;
std::atomic<uint64_t> compiles{0};

} // namespace

std::string wgmmaStallDiagnostic(const std::string &log) {
  // ptxas's codes for a wgmma pipeline it could not keep asynchronous:
  // C7510-C7519 ("wgmma.mma_async instructions are serialized due to ...",
  // C7514 among them; "warpgroup.wait is injected ...", C7517).
  size_t at = 0;
  while ((at = log.find("(C751", at)) != std::string::npos) {
    if (at + 7 <= log.size() && log[at + 6] == ')' && log[at + 5] >= '0' &&
        log[at + 5] <= '9') {
      const size_t nl = log.rfind('\n', at);
      const size_t begin = nl == std::string::npos ? 0 : nl + 1;
      const size_t end = std::min(log.find('\n', at), log.size());
      return log.substr(begin, end - begin);
    }
    ++at;
  }
  return "";
}

namespace {
/// The kernel this thread is compiling (CompilingKernel), or null.
thread_local const char *tCompiling = nullptr;
} // namespace

CompilingKernel::CompilingKernel(const char *name) : previous(tCompiling) {
  tCompiling = name;
}
CompilingKernel::~CompilingKernel() { tCompiling = previous; }

bool writeCrashNote(int fd, const char *tool) {
  const char *name = tCompiling;
  if (!name)
    return false;
  auto put = [fd](const char *text, size_t n) {
    while (n > 0) {
      const ssize_t w = ::write(fd, text, n);
      if (w <= 0)
        return;
      text += w;
      n -= static_cast<size_t>(w);
    }
  };
  static const char pre[] = ": error: NVRTC crashed while compiling kernel '";
  put(tool, std::strlen(tool));
  static const char post[] =
      "' (a Kiln bug: NVRTC failed on the CUDA C++ Kiln generated for it; "
      "--emit=cuda writes that source)\n";
  put(pre, sizeof pre - 1);
  put(name, std::strlen(name));
  put(post, sizeof post - 1);
  return true;
}

namespace {

/// One NVRTC compilation; fills `entry` or `log`.
bool compileOne(const NvrtcApi &api, const KernelRequest &req,
                const std::vector<std::string> &options, CacheEntry &entry,
                std::string &log) {
  nvrtcProgram prog = nullptr;
  std::string file = req.entry + ".cu";
  nvrtcResult r = api.createProgram(&prog, req.source.c_str(), file.c_str(), 0,
                                    nullptr, nullptr);
  if (r != 0) {
    log = std::string("nvrtcCreateProgram: ") + api.getErrorString(r);
    return false;
  }
  std::vector<const char *> opts;
  for (const std::string &o : options)
    opts.push_back(o.c_str());
  ++compiles;
  {
    const CompilingKernel compiling(req.name.c_str());
    r = api.compileProgram(prog, static_cast<int>(opts.size()), opts.data());
  }
  size_t logSize = 0;
  api.getProgramLogSize(prog, &logSize);
  std::string programLog(logSize, '\0');
  if (logSize)
    api.getProgramLog(prog, programLog.data());
  while (!programLog.empty() &&
         (programLog.back() == '\0' || programLog.back() == '\n'))
    programLog.pop_back();
  bool ok = r == 0;
  std::string stalled;
  if (!ok) {
    log = std::string(api.getErrorString(r)) +
          (programLog.empty() ? "" : ":\n" + programLog);
  } else if (!(stalled = wgmmaStallDiagnostic(programLog)).empty()) {
    // ptxas made the wgmma pipeline synchronous (serialized the
    // instructions or injected a wait): the kernel is correct but runs far
    // below its speed, so it is refused rather than shipped (the autotuner
    // drops such a candidate like any that fails to compile).
    ok = false;
    log = "ptxas serialized this kernel's wgmma pipeline: " + stalled;
  } else {
    size_t size = 0;
    ok = api.getPTXSize(prog, &size) == 0;
    if (ok) {
      entry.ptx.assign(size, '\0');
      ok = api.getPTX(prog, entry.ptx.data()) == 0;
      while (!entry.ptx.empty() && entry.ptx.back() == '\0')
        entry.ptx.pop_back();
    }
    if (ok)
      ok = api.getCUBINSize(prog, &size) == 0 && size > 0;
    if (ok) {
      entry.cubin.resize(size);
      ok = api.getCUBIN(prog, entry.cubin.data()) == 0;
    }
    if (!ok)
      log =
          "NVRTC produced no cubin (is the -arch a real architecture, sm_XX?)";
  }
  api.destroyProgram(&prog);
  return ok;
}

bool hasFile(const std::string &path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

} // namespace

bool loadNvrtc(std::string &error) {
  const Loaded &l = loaded();
  if (!l.api) {
    error = l.error;
    return false;
  }
  return true;
}

std::string nvrtcVersion() {
  const Loaded &l = loaded();
  return l.api ? l.api->versionString : std::string();
}

const std::string &cudaIncludeDir() {
  static const std::string dir = [] {
    std::vector<std::string> roots;
    for (const char *var : {"CUDA_HOME", "CUDA_PATH"})
      if (const char *root = std::getenv(var))
        roots.push_back(root);
    roots.push_back("/usr/local/cuda");
    for (const std::string &r : roots)
      if (hasFile(r + "/include/cuda_fp16.h"))
        return r + "/include";
    return std::string();
  }();
  return dir;
}

std::vector<std::string> nvrtcOptions(const CompileOptions &options) {
  std::vector<std::string> o = {"--gpu-architecture=" + options.arch,
                                "-std=c++17", "--restrict", "-default-device"};
  // --use_fast_math stays off: kernels must match the reference evaluator.
  if (options.lineInfo)
    o.push_back("-lineinfo");
  if (!cudaIncludeDir().empty())
    o.push_back("-I" + cudaIncludeDir());
  o.insert(o.end(), options.extraOptions.begin(), options.extraOptions.end());
  return o;
}

bool compileKernels(const std::vector<KernelRequest> &requests,
                    const CompileOptions &options,
                    std::vector<CompiledKernel> &out, std::string &error) {
  out.clear();
  if (!loadNvrtc(error))
    return false;
  const NvrtcApi &api = *loaded().api;
  // The option list and its hash per architecture the requests use.
  auto archOf = [&](const KernelRequest &r) -> const std::string & {
    return r.arch.empty() ? options.arch : r.arch;
  };
  std::map<std::string, std::pair<std::vector<std::string>, uint64_t>> optsOf;
  for (const KernelRequest &r : requests) {
    auto [it, inserted] = optsOf.try_emplace(archOf(r));
    if (!inserted)
      continue;
    CompileOptions o = options;
    o.arch = archOf(r);
    it->second.first = nvrtcOptions(o);
    uint64_t h = fnv1a(api.versionString);
    for (const std::string &opt : it->second.first)
      h = fnv1a(opt + '\0', h);
    it->second.second = h;
  }

  // Distinct sources that are not cached yet.
  std::vector<uint64_t> keys(requests.size());
  std::vector<size_t> todo; // request index of the first of each missing key
  {
    std::lock_guard<std::mutex> lock(cacheMutex);
    std::unordered_map<uint64_t, size_t> seen;
    for (size_t i = 0; i < requests.size(); ++i) {
      keys[i] =
          fnv1a(requests[i].source, optsOf.at(archOf(requests[i])).second);
      if (!cache.count(keys[i]) && seen.emplace(keys[i], i).second)
        todo.push_back(i);
    }
  }

  std::vector<std::shared_ptr<CacheEntry>> results(todo.size());
  std::vector<std::string> logs(todo.size());
  std::vector<char> okFlags(todo.size(), 0);
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t t; (t = next.fetch_add(1)) < todo.size();) {
      auto entry = std::make_shared<CacheEntry>();
      const KernelRequest &r = requests[todo[t]];
      okFlags[t] =
          compileOne(api, r, optsOf.at(archOf(r)).first, *entry, logs[t]);
      results[t] = std::move(entry);
    }
  };
  unsigned jobs = options.jobs
                      ? options.jobs
                      : std::max(1u, std::thread::hardware_concurrency());
  jobs = static_cast<unsigned>(std::min<size_t>(jobs, todo.size()));
  std::vector<std::thread> pool;
  for (unsigned j = 1; j < jobs; ++j)
    pool.emplace_back(worker);
  if (!todo.empty())
    worker();
  for (std::thread &t : pool)
    t.join();

  error.clear();
  for (size_t t = 0; t < todo.size(); ++t)
    if (!okFlags[t]) {
      const KernelRequest &r = requests[todo[t]];
      error += (error.empty() ? "" : "\n") +
               std::string("NVRTC failed to compile kernel '") + r.name +
               "' (entry " + r.entry + ", " + archOf(r) + "): " + logs[t];
    }
  if (!error.empty())
    return false;

  std::lock_guard<std::mutex> lock(cacheMutex);
  for (size_t t = 0; t < todo.size(); ++t)
    cache[keys[todo[t]]] = results[t];
  for (size_t i = 0; i < requests.size(); ++i) {
    const CacheEntry &e = *cache.at(keys[i]);
    CompiledKernel k;
    k.name = requests[i].name;
    k.entry = requests[i].entry;
    k.source = requests[i].source;
    k.ptx = e.ptx;
    k.cubin = e.cubin;
    k.arch = requests[i].arch;
    out.push_back(std::move(k));
  }
  return true;
}

void clearCompileCache() {
  std::lock_guard<std::mutex> lock(cacheMutex);
  cache.clear();
}

uint64_t compileCount() { return compiles.load(); }

} // namespace kiln::nvrtc
