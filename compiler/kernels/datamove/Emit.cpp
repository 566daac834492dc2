//===- EmitGather.cpp - Gather and GatherElements -------------------------===//
#include "compiler/kernels/datamove/DataMove.h"
#include "compiler/kernels/common/EmitterSupport.h"

namespace kiln::codegen::cuda {

bool emitGather(const LaunchSpec &s, KernelSource &out, std::string &error) {
  const BufferSpec &data = s.inputs[0], &idx = s.inputs[1], &o = s.outputs[0];
  const int64_t axis = s.config.getInt("axis"), vec = s.config.get(keys::vec, 1);
  if (data.dtype != o.dtype)
    return emitError(s, error, "gather must keep the element type");
  const int64_t dim = data.shape[axis], count = idx.numElements();
  int64_t inner = 1;
  for (int64_t d = axis + 1; d < data.rank(); ++d)
    inner *= data.shape[d];
  if (dim == 0 && o.numElements() != 0)
    return emitError(s, error, "gathers from an empty axis");
  IndexType it = indexTypeFor(s);
  const std::string I = it.name();
  std::ostringstream os;
  os << kernelPrologue(s, {"gather.cuh"});
  out.entry = "kiln_gather";
  out.hasErrorFlag = true;
  os << "extern \"C\" __global__ void __launch_bounds__(" << s.block[0] << ") "
     << out.entry << "(" << kernelParams(s) << ") {\n";
  os << "  kiln::for_each_index(" << intLiteral(o.numElements() / vec)
     << ", [&](kiln::i64 g) {\n";
  os << "    const " << I << " o = static_cast<" << I << ">(g)"
     << (vec > 1 ? " * " + std::to_string(vec) : "") << ";\n";
  os << "    const " << I << " outer = o / " << it.lit(count * inner) << ";\n";
  os << "    const " << I << " rem = o - outer * " << it.lit(count * inner)
     << ";\n";
  os << "    const " << I << " j = rem / " << it.lit(inner) << ";\n";
  os << "    const " << I << " i = rem - j * " << it.lit(inner) << ";\n";
  os << "    const " << I << " p = static_cast<" << I
     << ">(kiln::normalize_index(in1[j], " << intLiteral(dim) << "));\n";
  std::string src =
      "in0 + ((outer * " + it.lit(dim) + " + p) * " + it.lit(inner) + " + i)";
  if (vec > 1)
    os << "    kiln::store_vec<" << vec << ">(out0 + o, kiln::load_vec<" << vec
       << ">(" << src << "));\n";
  else
    os << "    out0[o] = *(" << src << ");\n";
  os << "  });\n}\n";
  out.source = os.str();
  return true;
}

bool emitGatherElements(const LaunchSpec &s, KernelSource &out,
                        std::string &error) {
  const BufferSpec &data = s.inputs[0], &idx = s.inputs[1], &o = s.outputs[0];
  const int64_t axis = s.config.getInt("axis");
  if (data.dtype != o.dtype || data.rank() != idx.rank() ||
      o.shape != idx.shape)
    return emitError(
        s, error,
        "gather_elements needs data and indices of one rank and an "
        "output of the indices' shape");
  for (int64_t d = 0; d < data.rank(); ++d)
    if (d != axis && idx.shape[d] > data.shape[d])
      return emitError(s, error,
                       "indices axis " + std::to_string(d) +
                           " is longer than the data's");
  if (data.shape[axis] == 0 && o.numElements() != 0)
    return emitError(s, error, "gathers from an empty axis");
  std::vector<int64_t> ds = rowMajorStrides(data.shape);
  IndexType it = indexTypeFor(s);
  const std::string I = it.name();
  std::ostringstream os;
  os << kernelPrologue(s, {"gather.cuh"});
  out.entry = "kiln_gather_elements";
  out.hasErrorFlag = true;
  os << "extern \"C\" __global__ void __launch_bounds__(" << s.block[0] << ") "
     << out.entry << "(" << kernelParams(s) << ") {\n";
  os << "  kiln::for_each_index(" << intLiteral(o.numElements())
     << ", [&](kiln::i64 g) {\n";
  os << "    const " << I << " o = static_cast<" << I << ">(g);\n";
  emitUnravel(os, "    ", it, "o", idx.shape, "c");
  os << "    const " << I << " p = static_cast<" << I
     << ">(kiln::normalize_index(in1[o], " << intLiteral(data.shape[axis])
     << "));\n";
  StridedAccess a;
  a.strides = ds;
  a.strides[axis] = 0;
  os << "    out0[o] = in0[" << offsetExpr(it, a, "c") << " + p * "
     << it.lit(ds[axis]) << "];\n";
  os << "  });\n}\n";
  out.source = os.str();
  return true;
}

bool emitConcat(const LaunchSpec &s, KernelSource &out, std::string &error) {
  const BufferSpec &o = s.outputs[0];
  const int64_t axis = s.config.getInt("axis"), vec = s.config.get(keys::vec, 1);
  int64_t inner = 1;
  for (int64_t d = axis + 1; d < o.rank(); ++d)
    inner *= o.shape[d];
  const int64_t len = o.shape[axis];
  IndexType it = indexTypeFor(s);
  std::ostringstream os;
  os << kernelPrologue(s, {});
  out.entry = "kiln_concat";
  os << "extern \"C\" __global__ void __launch_bounds__(" << s.block[0] << ") "
     << out.entry << "(" << kernelParams(s) << ") {\n";
  os << "  kiln::for_each_index(" << intLiteral(o.numElements() / vec)
     << ", [&](kiln::i64 g) {\n";
  os << "    const " << it.name() << " o = static_cast<" << it.name() << ">(g)"
     << (vec > 1 ? " * " + std::to_string(vec) : "") << ";\n";
  os << "    const " << it.name() << " outer = o / " << it.lit(len * inner)
     << ";\n";
  os << "    const " << it.name() << " rem = o - outer * "
     << it.lit(len * inner) << ";\n";
  os << "    const " << it.name() << " a = rem / " << it.lit(inner) << ";\n";
  os << "    const " << it.name() << " i = rem - a * " << it.lit(inner)
     << ";\n";
  int64_t start = 0;
  bool first = true;
  for (size_t k = 0; k < s.inputs.size(); ++k) {
    int64_t l = s.inputs[k].shape[axis];
    if (s.inputs[k].rank() != o.rank())
      return emitError(s, error, "inputs must have the output's rank");
    if (l == 0)
      continue;
    std::string src = "in" + std::to_string(k) + " + (outer * " +
                      it.lit(l * inner) + " + (a - " + it.lit(start) + ") * " +
                      it.lit(inner) + " + i)";
    bool last = start + l == len;
    os << "    " << (first ? "" : "else ")
       << (last ? "" : "if (a < " + it.lit(start + l) + ") ") << "{\n";
    if (vec > 1)
      os << "      kiln::store_vec<" << vec << ">(out0 + o, kiln::load_vec<"
         << vec << ">(" << src << "));\n";
    else
      os << "      out0[o] = *(" << src << ");\n";
    os << "    }\n";
    first = false;
    start += l;
    if (last)
      break;
  }
  os << "  });\n}\n";
  out.source = os.str();
  return true;
}

} // namespace kiln::codegen::cuda
