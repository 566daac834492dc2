//===- PlanMemory.cpp - Liveness-based arena placement of allocs ----------===//
#include "compiler/lowering/Passes.h"

#include "compiler/lowering/SpecBridge.h"
#include "dialects/kernel/KernelOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/Debug.h"

#include <algorithm>

#define DEBUG_TYPE "kiln-plan-memory"

using namespace mlir;
using namespace kiln;
namespace kern = kiln::kernel;

namespace kiln {
#define GEN_PASS_DEF_PLANMEMORYPASS
#include "compiler/lowering/Passes.h.inc"
} // namespace kiln

namespace {

struct Buffer {
  kern::AllocOp alloc;
  int64_t size = 0;
  int64_t first = -1, last = -1; // launch positions, inclusive
  int64_t offset = 0;
  // The buffer whose bytes this one reuses in place (an elementwise launch
  // writes it over an input that dies there), or -1: the one placed.
  int64_t host = -1;
  bool overlaps(const Buffer &o) const {
    return first <= o.last && o.first <= last;
  }
};

int64_t alignUp(int64_t v, int64_t a) { return (v + a - 1) / a * a; }

struct PlanMemoryPass : kiln::impl::PlanMemoryPassBase<PlanMemoryPass> {
  using Base::Base;

  void runOnOperation() override {
    if (alignment < 1 || (alignment & (alignment - 1)) != 0) {
      getOperation().emitError() << "kiln-plan-memory: alignment " << alignment
                                 << " is not a power of two";
      return signalPassFailure();
    }
    for (func::FuncOp fn : getOperation().getOps<func::FuncOp>())
      if (!fn.isExternal())
        planFunction(fn);
  }

  /// Elementwise launches (`elementwise`, `fused_elementwise`) read each
  /// input of the output's shape at the output's own index (unless explicit
  /// `input_strides` say otherwise), every thread
  /// loading its elements before it stores them: such an output may take the
  /// bytes of an input that dies at that launch (its last use), when both are
  /// whole allocations of one size and element size and no other operand of
  /// the launch names the input. The output then shares the input's slot
  /// (its `host`, whose lifetime grows to cover it) and the launch's config
  /// gets `in_place = [input, output, ...]`, so codegen drops `__restrict__`
  /// from those parameters.
  void planInPlace(func::FuncOp fn, std::vector<Buffer> &buffers,
                   const DenseMap<Operation *, size_t> &index) {
    auto hostOf = [&](int64_t i) {
      while (buffers[i].host >= 0)
        i = buffers[i].host;
      return i;
    };
    // The buffer index of a whole, unoffset view of an allocation, or -1.
    auto wholeAlloc = [&](Value v) -> int64_t {
      BufferRoot r = resolveBuffer(v);
      auto a = r.root.getDefiningOp<kern::AllocOp>();
      if (!a || r.offset != 0)
        return -1;
      int64_t i = index.lookup(a);
      return kern::bufferByteSize(v.getType()) == buffers[i].size ? i : -1;
    };
    int64_t pos = 0;
    fn.walk([&](kern::LaunchOp launch) {
      const int64_t here = pos++;
      if (launch.getKind() != "elementwise" &&
          launch.getKind() != "fused_elementwise")
        return;
      SmallVector<int64_t> pairs;
      SmallVector<bool> taken(launch.getInputs().size(), false);
      // With explicit maps (a fused region's reshapes and transposes), only
      // an input read row-major over the space is read at the output's index.
      auto readsOwnIndex = [&](size_t k) {
        auto space = dyn_cast_or_null<DenseI64ArrayAttr>(
            launch.getConfig().get("space"));
        auto strides = dyn_cast_or_null<DenseI64ArrayAttr>(
            launch.getConfig().get("input_strides"));
        if (!strides)
          return true;
        if (!space)
          return false;
        ArrayRef<int64_t> e = space.asArrayRef();
        ArrayRef<int64_t> mine = strides.asArrayRef().slice(k * e.size(), e.size());
        int64_t expect = 1;
        for (int64_t d = static_cast<int64_t>(e.size()) - 1; d >= 0; --d) {
          if (e[d] > 1 && mine[d] != expect)
            return false;
          expect *= e[d];
        }
        return true;
      };
      for (auto [j, out] : llvm::enumerate(launch.getOutputs())) {
        int64_t o = wholeAlloc(out);
        if (o < 0 || buffers[o].first != here || buffers[o].host >= 0)
          continue;
        auto outType = cast<MemRefType>(out.getType());
        for (auto [k, in] : llvm::enumerate(launch.getInputs())) {
          int64_t i = wholeAlloc(in);
          auto inType = cast<MemRefType>(in.getType());
          if (taken[k] || i < 0 || i == o || !readsOwnIndex(k) ||
              buffers[hostOf(i)].last != here ||
              buffers[i].size != buffers[o].size ||
              inType.getShape() != outType.getShape() ||
              kern::bufferByteSize(inType) * outType.getNumElements() !=
                  kern::bufferByteSize(outType) * inType.getNumElements())
            continue;
          // No other operand may reach the input's bytes.
          int64_t named = 0;
          for (Value v : launch->getOperands())
            named += resolveBuffer(v).root == buffers[i].alloc.getResult();
          if (named != 1)
            continue;
          int64_t h = hostOf(i);
          buffers[o].host = h;
          buffers[h].last = std::max(buffers[h].last, buffers[o].last);
          taken[k] = true;
          pairs.append({static_cast<int64_t>(k), static_cast<int64_t>(j)});
          ++inPlaceBuffers;
          break;
        }
      }
      if (pairs.empty())
        return;
      NamedAttrList config(launch.getConfig());
      config.set("in_place", DenseI64ArrayAttr::get(fn.getContext(), pairs));
      launch.setConfigAttr(config.getDictionary(fn.getContext()));
    });
  }

  void planFunction(func::FuncOp fn) {
    std::vector<Buffer> buffers;
    DenseMap<Operation *, size_t> index;
    fn.walk([&](kern::AllocOp a) {
      index[a] = buffers.size();
      Buffer b;
      b.alloc = a;
      b.size = a.getByteSize();
      buffers.push_back(b);
    });
    bool kernelFunction = !buffers.empty();
    for (unsigned i = 0; i < fn.getNumArguments() && !kernelFunction; ++i)
      kernelFunction = fn.getArgAttr(i, kern::KernelDialect::kInputAttr) ||
                       fn.getArgAttr(i, kern::KernelDialect::kOutputAttr);
    if (!kernelFunction)
      return; // A graph function or a helper: nothing to plan.
    // A buffer lives from the first to the last launch that names it, itself
    // or through any view.
    int64_t pos = 0;
    fn.walk([&](kern::LaunchOp launch) {
      for (Value v : launch->getOperands()) {
        Value root = resolveBuffer(v).root;
        auto a = root.getDefiningOp<kern::AllocOp>();
        if (!a)
          continue;
        Buffer &b = buffers[index.lookup(a)];
        if (b.first < 0)
          b.first = pos;
        b.last = pos;
      }
      ++pos;
    });

    if (inPlace)
      planInPlace(fn, buffers, index);

    std::vector<Buffer *> order;
    for (Buffer &b : buffers) {
      if (b.host >= 0)
        continue; // Placed with its host.
      if (b.first < 0) {
        // No launch touches it (every use was dropped, e.g. empty tensors).
        if (b.alloc->use_empty() || b.size == 0) {
          b.first = b.last = -2;
          continue;
        }
        b.first = 0;
        b.last = pos; // Conservative: views of it are used outside launches.
      }
      order.push_back(&b);
    }
    // Largest first; ties by first use, so the plan is deterministic.
    std::stable_sort(order.begin(), order.end(),
                     [](const Buffer *x, const Buffer *y) {
                       if (x->size != y->size)
                         return x->size > y->size;
                       return x->first < y->first;
                     });
    std::vector<const Buffer *> placed;
    int64_t arena = 0, total = 0;
    for (Buffer *b : order) {
      std::vector<std::pair<int64_t, int64_t>>
          busy; // [begin, end) of conflicts
      for (const Buffer *p : placed)
        if (p->overlaps(*b))
          busy.push_back({p->offset, p->offset + p->size});
      std::sort(busy.begin(), busy.end());
      int64_t offset = 0;
      for (auto [begin, end] : busy) {
        if (offset + b->size <= begin)
          break;
        offset = std::max(offset, alignUp(end, alignment));
      }
      b->offset = offset;
      placed.push_back(b);
      arena = std::max(arena, offset + b->size);
    }
    for (Buffer &b : buffers) {
      if (b.host >= 0)
        b.offset = buffers[b.host].offset;
      if (b.first != -2)
        total += alignUp(b.size, alignment);
    }
    OpBuilder builder(fn.getContext());
    for (Buffer &b : buffers) {
      if (b.first == -2) {
        if (b.alloc->use_empty()) {
          b.alloc.erase();
          continue;
        }
        b.offset = 0; // Zero bytes: any offset is fine.
      }
      b.alloc.setOffsetAttr(builder.getI64IntegerAttr(b.offset));
    }
    arena = alignUp(arena, alignment);
    fn->setAttr(kern::KernelDialect::kArenaSizeAttr,
                builder.getI64IntegerAttr(arena));
    arenaBytes += arena;
    allocatedBytes += total;
    LLVM_DEBUG(llvm::dbgs() << "kiln-plan-memory: @" << fn.getSymName() << ": "
                            << buffers.size() << " buffers, " << total
                            << " bytes without reuse, arena " << arena << "\n");
  }
};

} // namespace
