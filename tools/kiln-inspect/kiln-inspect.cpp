//===- kiln-inspect.cpp - Print what an engine file holds -----------------===//
//
// kiln-inspect model.engine [--sections] [--kernels] [--memory] (default: all)
// kiln-inspect model.engine --extract-section N -o FILE
//
// Verifies the engine like the runtime does, then prints the header, the
// manifest (inputs, outputs, provenance), the sections, every kernel with its
// launch geometry and arguments, and the memory plan (arena buffers with their
// offsets and the arena's peak size, weight bytes). --extract-section writes
// section N's bytes (a cubin for `cuobjdump --dump-sass`, PTX, weights) to
// FILE after the same verification.
//
//===----------------------------------------------------------------------===//
#include "kiln/internal/engine_reader.h"
#include "kiln/kiln.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

using namespace kiln::rt;
namespace fb = kiln::fb;

static std::string human(uint64_t bytes) {
  char buf[64];
  if (bytes >= (1ull << 30))
    std::snprintf(buf, sizeof buf, "%.2f GiB", bytes / double(1ull << 30));
  else if (bytes >= (1ull << 20))
    std::snprintf(buf, sizeof buf, "%.2f MiB", bytes / double(1ull << 20));
  else if (bytes >= 1024)
    std::snprintf(buf, sizeof buf, "%.1f KiB", bytes / 1024.0);
  else
    std::snprintf(buf, sizeof buf, "%llu B", (unsigned long long)bytes);
  return buf;
}

static const char *bufferKind(fb::BufferKind k) {
  switch (k) {
  case fb::BufferKind::Arena: return "arena";
  case fb::BufferKind::Weights: return "weights";
  case fb::BufferKind::Input: return "input";
  case fb::BufferKind::Output: return "output";
  case fb::BufferKind::Workspace: return "workspace";
  }
  return "?";
}

int main(int argc, char **argv) {
  std::string path, extractTo;
  long long extract = -1;
  bool sections = false, kernels = false, memory = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--help" || a == "-h") {
      std::printf("usage: kiln-inspect model.engine [--sections] [--kernels] [--memory]\n"
                  "       kiln-inspect model.engine --extract-section N -o FILE\n");
      return 0;
    }
    if (a == "--sections") sections = true;
    else if (a == "--kernels") kernels = true;
    else if (a == "--memory") memory = true;
    else if ((a == "--extract-section" || a == "-o") && i + 1 >= argc) {
      std::fprintf(stderr, "kiln-inspect: error: %s needs a value\n", a.c_str());
      return 1;
    } else if (a == "--extract-section") {
      char *end = nullptr;
      extract = std::strtoll(argv[++i], &end, 10);
      if (!end || *end || extract < 0) {
        std::fprintf(stderr, "kiln-inspect: error: --extract-section takes a section index, not '%s'\n",
                     argv[i]);
        return 1;
      }
    } else if (a == "-o") extractTo = argv[++i];
    else if (a[0] == '-') { std::fprintf(stderr, "kiln-inspect: error: unknown option '%s'\n", a.c_str()); return 1; }
    else path = a;
  }
  if (path.empty()) {
    std::fprintf(stderr, "kiln-inspect: error: no engine given\n");
    return 1;
  }
  if (!sections && !kernels && !memory)
    sections = kernels = memory = true;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "%s: error: cannot open the engine\n", path.c_str());
    return 1;
  }
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EngineView view;
  if (kiln_status s = verifyEngineImage(bytes.data(), bytes.size(), path, view)) {
    std::fprintf(stderr, "%s\n", kiln_status_message(s));
    kiln_status_free(s);
    return 1;
  }
  if (extract >= 0 || !extractTo.empty()) {
    if (extract < 0 || extractTo.empty()) {
      std::fprintf(stderr, "kiln-inspect: error: --extract-section N and -o FILE go together\n");
      return 1;
    }
    if (size_t(extract) >= view.sections.size()) {
      std::fprintf(stderr, "kiln-inspect: error: %s has %zu sections, not section %lld\n",
                   path.c_str(), view.sections.size(), extract);
      return 1;
    }
    const Section &sec = view.sections[size_t(extract)];
    std::ofstream out(extractTo, std::ios::binary);
    out.write(reinterpret_cast<const char *>(sec.data), std::streamsize(sec.entry.size));
    out.close();
    if (!out) {
      std::fprintf(stderr, "kiln-inspect: error: cannot write '%s'\n", extractTo.c_str());
      return 1;
    }
    std::printf("section %lld (%s, %llu bytes) written to %s\n", extract,
                kiln_section_kind_name(sec.entry.kind), (unsigned long long)sec.entry.size,
                extractTo.c_str());
    return 0;
  }
  const fb::Manifest *m = view.manifest;
  std::printf("engine %s: format v%u, compiler %s, target %s, %s, %u rank(s)\n", path.c_str(),
              m->format_version(), m->compiler_version()->c_str(), m->target_arch()->c_str(),
              human(bytes.size()).c_str(), m->tensor_parallel_ranks());
  if (auto *p = m->provenance()) {
    if (p->model_sha256())
      std::printf("  model sha256 %s\n", p->model_sha256()->c_str());
    if (p->compile_flags())
      std::printf("  flags        %s\n", p->compile_flags()->c_str());
    if (p->tuning_cache_hash() && p->tuning_cache_hash()->size())
      std::printf("  tuning cache %s\n", p->tuning_cache_hash()->c_str());
  }
  auto tensors = [](const char *what, const flatbuffers::Vector<flatbuffers::Offset<fb::Tensor>> *v) {
    if (!v)
      return;
    for (const fb::Tensor *t : *v)
      std::printf("  %s %-24s %s\n", what, t->name()->c_str(), describeTensor(*t).c_str());
  };
  tensors("input ", m->inputs());
  tensors("output", m->outputs());

  if (sections) {
    std::printf("sections:\n");
    for (size_t i = 0; i < view.sections.size(); ++i) {
      const auto &e = view.sections[i].entry;
      std::printf("  %2zu %-9s offset %10llu  size %10s  align %llu\n", i,
                  kiln_section_kind_name(e.kind), (unsigned long long)e.offset,
                  human(e.size).c_str(), (unsigned long long)e.alignment);
    }
  }
  for (size_t r = 0; r < view.plans.size(); ++r) {
    const fb::Plan *plan = view.plans[r];
    if (kernels) {
      size_t n = plan->launch_order() ? plan->launch_order()->size() : 0;
      std::printf("plan rank %zu: %zu launches, %s\n", r, n,
                  plan->is_static() ? "static (replayed as a CUDA graph)" : "dynamic");
      for (size_t i = 0; i < n; ++i) {
        const fb::Kernel *k = plan->kernels()->Get(plan->launch_order()->Get(i));
        const fb::Image *img = plan->images() && k->image() < plan->images()->size()
                                   ? plan->images()->Get(k->image())
                                   : nullptr;
        const std::string imgArch =
            img && img->arch() ? " arch " + img->arch()->str() : std::string();
        std::printf("  #%-3zu %-32s entry %s grid [%u,%u,%u] block [%u,%u,%u] smem %u%s%s\n", i,
                    k->name()->c_str(), k->entry()->c_str(), k->grid()->x(), k->grid()->y(),
                    k->grid()->z(), k->block()->x(), k->block()->y(), k->block()->z(),
                    k->dynamic_shared_bytes(), imgArch.c_str(),
                    k->programmatic_launch() ? " programmatic" : "");
        if (k->nodes() || k->bytes() || k->flops())
          std::printf("        nodes: %s; operand bytes %s; flops %llu\n",
                      k->nodes() ? k->nodes()->c_str() : "(unknown)", human(k->bytes()).c_str(),
                      (unsigned long long)k->flops());
        if (const fb::LibraryCall *l = k->library())
          std::printf("        cublasLt matmul: %s%s m %llu n %llu k %llu%s%s batch %llu "
                      "lda %llu ldb %llu ldc %llu alpha %g beta %g epilogue %s algo %u "
                      "workspace %s (measured with cuBLASLt %s)\n",
                      fb::EnumNameDType(l->dtype()), l->tf32() ? " tf32" : "",
                      (unsigned long long)l->m(), (unsigned long long)l->n(),
                      (unsigned long long)l->k(), l->trans_a() ? " transA" : "",
                      l->trans_b() ? " transB" : "", (unsigned long long)l->batch(),
                      (unsigned long long)l->lda(), (unsigned long long)l->ldb(),
                      (unsigned long long)l->ldc(), double(l->alpha()), double(l->beta()),
                      fb::EnumNameMatmulEpilogue(l->epilogue()), l->algo(),
                      human(l->workspace_bytes()).c_str(),
                      l->library_version() ? std::to_string(l->library_version()).c_str()
                                           : "unknown");
        if (!k->args())
          continue;
        std::printf("        args:");
        for (const fb::Arg *a : *k->args()) {
          if (a->kind() == fb::ArgKind::BufferRef) {
            const fb::Buffer *b = plan->buffers()->Get(a->buffer());
            std::printf(" %s%s", bufferKind(b->kind()), b->name() ? ("(" + b->name()->str() + ")").c_str() : "");
            if (a->value())
              std::printf("+%llu", (unsigned long long)a->value());
          } else if (a->kind() == fb::ArgKind::TensorMap) {
            // The verifier checked the index and the map's buffer.
            const fb::TensorMap *m = k->tensor_maps()->Get(uint32_t(a->value()));
            const fb::Buffer *b = plan->buffers()->Get(m->buffer());
            std::printf(" tma[%s%s", bufferKind(b->kind()),
                        b->name() ? ("(" + b->name()->str() + ")").c_str() : "");
            if (m->offset())
              std::printf("+%llu", (unsigned long long)m->offset());
            std::printf(" dims");
            for (uint32_t d = 0; d < m->dims()->size(); ++d)
              std::printf("%s%llu", d ? "x" : " ", (unsigned long long)m->dims()->Get(d));
            std::printf(" box");
            for (uint32_t d = 0; d < m->box()->size(); ++d)
              std::printf("%s%u", d ? "x" : " ", m->box()->Get(d));
            std::printf(" swizzle %u]", m->swizzle());
          } else {
            std::printf(" #%llu", (unsigned long long)a->value());
          }
        }
        std::printf("\n");
      }
    }
    if (memory) {
      uint64_t weights = 0;
      size_t arenaBuffers = 0;
      for (const fb::Buffer *b : *plan->buffers()) {
        if (b->kind() == fb::BufferKind::Weights)
          weights += b->size();
        if (b->kind() == fb::BufferKind::Arena)
          ++arenaBuffers;
      }
      std::printf("memory plan rank %zu: activation arena peak %s (%llu bytes) over %zu buffers; weights %s\n",
                  r, human(plan->arena_size()).c_str(), (unsigned long long)plan->arena_size(),
                  arenaBuffers, human(weights).c_str());
      for (const fb::Buffer *b : *plan->buffers())
        if (b->kind() == fb::BufferKind::Arena)
          std::printf("  arena [%10llu, %10llu) %10s  %s\n", (unsigned long long)b->offset(),
                      (unsigned long long)(b->offset() + b->size()), human(b->size()).c_str(),
                      b->name() ? b->name()->c_str() : "");
      if (plan->workspace_size() > 0)
        std::printf("  kernel workspace %s (%llu bytes, zeroed per context)\n",
                    human(plan->workspace_size()).c_str(),
                    (unsigned long long)plan->workspace_size());
    }
  }
  return 0;
}
