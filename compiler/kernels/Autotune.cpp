//===- Autotune.cpp - Measuring a launch's tuning candidates --------------===//
#include "compiler/kernels/Autotune.h"

#include "autotune/GpuMeasure.h"
#include "compiler/kernels/library/LibraryCalls.h"
#include "compiler/kernels/common/KernelSource.h"
#include "compiler/nvrtc/NvrtcCompiler.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <set>

namespace kiln::codegen {

bool measureBuffers(const LaunchSpec &spec,
                    std::vector<autotune::BufferDesc> &inputs,
                    std::vector<autotune::BufferDesc> &outputs,
                    std::string &why) {
  inputs.clear();
  outputs.clear();
  auto desc = [&](const BufferSpec &b) {
    autotune::BufferDesc d;
    d.dtype = dtypeName(b.dtype);
    d.elements = b.numElements();
    return d;
  };
  for (const BufferSpec &b : spec.inputs)
    inputs.push_back(desc(b));
  for (const BufferSpec &b : spec.outputs)
    outputs.push_back(desc(b));
  for (const auto *list : {&inputs, &outputs})
    for (const autotune::BufferDesc &d : *list)
      if (!autotune::dtypeSize(d.dtype)) {
        why = "no test data for dtype " + d.dtype;
        return false;
      }
  if (spec.kind == "gather" || spec.kind == "gather_elements") {
    // Indices within the gathered axis (non-negative: the wrap of negative
    // ones is the same code for every candidate).
    const int64_t axis = spec.config.getInt("axis", -1);
    if (spec.inputs.size() != 2 || axis < 0 || axis >= spec.inputs[0].rank() ||
        spec.inputs[0].shape[axis] <= 0) {
      why = "no valid gather indices for this launch";
      return false;
    }
    inputs[1].intLo = 0;
    inputs[1].intHi = spec.inputs[0].shape[axis];
  }
  return true;
}

namespace {

/// Emits, compiles and measures the candidates space.kept[i] for i in
/// `which` (which[0] must be 0, the reference). Returns one measurement per
/// entry of `which`, `candidate` being the index into space.kept.
bool measureSubset(const LaunchSpec &configured,
                   const autotune::PrunedSpace &space,
                   const std::vector<size_t> &which,
                   const TargetOptions &target, const autotune::GpuJob &base,
                   LaunchTuneResult &result,
                   std::vector<autotune::Measurement> &out,
                   std::string &error) {
  out.clear();
  using Clock = std::chrono::steady_clock;
  const Clock::time_point compileStart = Clock::now();
  autotune::GpuJob job = base;
  // Emit every candidate; one that does not emit is dropped.
  struct Candidate {
    size_t space; ///< index into space.kept
    LaunchSpec spec;
    std::vector<autotune::TensorMapArg> tensorMaps; ///< over the operands
  };
  std::vector<Candidate> cands;
  std::vector<nvrtc::KernelRequest> requests;
  // Library calls (cuBLASLt) need no compiling: they join the job after
  // the compiled candidates, the reference never being one.
  std::vector<std::pair<size_t, engine::LibraryCallSpec>> calls;
  for (size_t i : which) {
    LaunchSpec spec = configured;
    std::string why;
    cuda::KernelSource src;
    const bool applied = applyTuningConfig(spec, space.kept[i], target, why);
    if (applied && i != 0 && spec.config.get(keys::path) == "cublaslt") {
      engine::LibraryCallSpec call;
      if (cublasLtCall(spec, call, why))
        calls.emplace_back(i, call);
      else
        result.notes.push_back(autotune::printConfig(space.kept[i]) + ": " +
                               why);
      continue;
    }
    if (!applied || !cuda::emitKernelSource(spec, src, why)) {
      if (i == 0) {
        result.skipped = "the reference does not emit: " + why;
        return true;
      }
      result.notes.push_back(autotune::printConfig(space.kept[i]) + ": " + why);
      continue;
    }
    requests.push_back({spec.name + "#" + std::to_string(i), src.entry,
                        src.source, src.archSpecific ? "sm_90a" : ""});
    cands.push_back({i, std::move(spec), std::move(src.tensorMaps)});
  }

  // Compile in parallel; when some fail, compile one by one to drop just
  // those (the batch call reports failures for the whole batch).
  if (!nvrtc::loadNvrtc(error))
    return false;
  nvrtc::CompileOptions options;
  options.arch = target.arch;
  std::vector<nvrtc::CompiledKernel> compiled;
  std::vector<bool> ok(requests.size(), true);
  std::string why;
  if (!nvrtc::compileKernels(requests, options, compiled, why)) {
    compiled.assign(requests.size(), {});
    for (size_t i = 0; i < requests.size(); ++i) {
      std::vector<nvrtc::CompiledKernel> one;
      std::string oneWhy;
      if (nvrtc::compileKernels({requests[i]}, options, one, oneWhy)) {
        compiled[i] = std::move(one[0]);
      } else {
        ok[i] = false;
        result.notes.push_back(
            autotune::printConfig(space.kept[cands[i].space]) +
            ": does not compile");
      }
    }
    if (!ok[0] || cands[0].space != 0) {
      result.skipped = "the reference does not compile";
      return true;
    }
  }
  std::vector<size_t> spaceOf; // job candidate -> space.kept index
  for (size_t i = 0; i < cands.size(); ++i) {
    if (!ok[i])
      continue;
    autotune::GpuKernel k;
    const nvrtc::CompiledKernel &c = compiled[i];
    if (!c.cubin.empty()) {
      k.image = c.cubin;
    } else {
      k.image.assign(c.ptx.begin(), c.ptx.end());
      k.image.push_back('\0');
    }
    k.entry = c.entry;
    const LaunchSpec &sp = cands[i].spec;
    for (int d = 0; d < 3; ++d) {
      k.grid[d] = unsigned(sp.grid[d]);
      k.block[d] = unsigned(sp.block[d]);
    }
    k.smem = unsigned(sp.smem);
    k.tensorMaps = cands[i].tensorMaps;
    k.workspaceBytes = launchWorkspaceBytes(sp);
    job.candidates.push_back(std::move(k));
    spaceOf.push_back(cands[i].space);
  }
  for (const auto &[i, call] : calls) {
    autotune::GpuKernel k;
    k.hasLibrary = true;
    k.library = call;
    job.candidates.push_back(std::move(k));
    spaceOf.push_back(i);
  }
  result.candidates += job.candidates.size();

  const Clock::time_point gpuStart = Clock::now();
  result.compileSeconds +=
      std::chrono::duration<double>(gpuStart - compileStart).count();
  std::vector<std::string> notes;
  std::vector<autotune::Measurement> ms = autotune::measureOnGpu(job, notes);
  result.gpuSeconds +=
      std::chrono::duration<double>(Clock::now() - gpuStart).count();
  // One note per candidate that failed (crashed, hung, disagreed); the
  // medians themselves survive only for the re-timed finalists.
  size_t failed = 0;
  for (const std::string &n : notes) {
    failed += n.rfind("interleaved re-timing", 0) != 0;
    // "candidate <job index>: why" names the config instead (job indices
    // mean nothing outside this job).
    size_t colon = n.find(": ");
    if (n.rfind("candidate ", 0) == 0 && colon != std::string::npos) {
      size_t j = std::strtoull(n.c_str() + 10, nullptr, 10);
      if (j < spaceOf.size()) {
        result.notes.push_back(
            autotune::printConfig(space.kept[spaceOf[j]]) + n.substr(colon));
        continue;
      }
    }
    result.notes.push_back(n);
  }
  result.passed += job.candidates.size() - std::min(failed, job.candidates.size());
  for (autotune::Measurement &m : ms) {
    m.candidate = spaceOf[m.candidate];
    out.push_back(m);
  }
  return true;
}

} // namespace

std::vector<size_t> firstOfEachFamily(const autotune::PrunedSpace &space) {
  std::vector<size_t> out{0};
  std::set<std::string> seen{configFamily(space.kept[0])};
  for (size_t i = 1; i < space.kept.size(); ++i)
    if (seen.insert(configFamily(space.kept[i])).second)
      out.push_back(i);
  return out;
}

bool tuneLaunch(const LaunchSpec &configured, autotune::SearchLevel level,
                const TargetOptions &target,
                const autotune::Toolchain &toolchain, double timeoutSeconds,
                LaunchTuneResult &result, std::string &error) {
  result = LaunchTuneResult();
  autotune::GpuJob job;
  job.timeoutSeconds = timeoutSeconds;
  if (!measureBuffers(configured, job.inputs, job.outputs, result.skipped))
    return true;
  const autotune::PrunedSpace space =
      tuningCandidates(configured, level, target);
  if (space.kept.size() < 2) {
    result.skipped = "one valid candidate, nothing to compare";
    return true;
  }

  // Staged: first one candidate of each family (path and tile shape), then
  // every other member of the two fastest families. Families differ by up
  // to 3x while the variants within one (stages, split-K, tile_k, group
  // order) by tens of percent, so this finds the whole space's winner in a
  // fraction of the compiles (BERT's matmuls: ~85 of ~430 at max). Small
  // spaces are measured in one go.
  std::vector<autotune::Measurement> all, ms;
  std::vector<size_t> first = firstOfEachFamily(space);
  const bool staged = space.kept.size() > 2 * first.size();
  if (!staged) {
    first.resize(space.kept.size());
    for (size_t i = 0; i < first.size(); ++i)
      first[i] = i;
  }
  if (!measureSubset(configured, space, first, target, job, result, all,
                     error))
    return false;
  if (!result.skipped.empty())
    return true;
  if (staged) {
    std::vector<const autotune::Measurement *> ranked;
    for (const autotune::Measurement &m : all)
      if (m.medianMs)
        ranked.push_back(&m);
    std::stable_sort(ranked.begin(), ranked.end(),
                     [](const autotune::Measurement *a,
                        const autotune::Measurement *b) {
                       return *a->medianMs < *b->medianMs;
                     });
    std::set<std::string> best;
    for (size_t r = 0; r < ranked.size() && best.size() < 2; ++r)
      best.insert(configFamily(space.kept[ranked[r]->candidate]));
    // Every member of the best families, their leaders again: the winner
    // then comes from one job's interleaved re-timing, not from two runs'
    // medians side by side.
    std::vector<size_t> second{0};
    for (size_t i = 1; i < space.kept.size(); ++i)
      if (best.count(configFamily(space.kept[i])))
        second.push_back(i);
    if (second.size() > 2) {
      if (!measureSubset(configured, space, second, target, job, result, ms,
                         error))
        return false;
      if (!result.skipped.empty())
        return true;
      if (autotune::chooseWinner(ms).winner)
        all = std::move(ms);
    }
  }
  const autotune::Choice choice = autotune::chooseWinner(all);
  if (!choice.winner) {
    result.skipped = "no candidate ran (the reference failed)";
    return true;
  }
  autotune::TuningEntry entry;
  entry.signature = kernelSignature(configured, toolchain);
  entry.config = space.kept[*choice.winner];
  entry.winnerMs = choice.winnerMs;
  entry.runnerUpMs = choice.runnerUpMs;
  result.entry = std::move(entry);
  return true;
}

} // namespace kiln::codegen
