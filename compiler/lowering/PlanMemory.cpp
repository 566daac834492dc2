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

    std::vector<Buffer *> order;
    for (Buffer &b : buffers) {
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
      total += alignUp(b->size, alignment);
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
