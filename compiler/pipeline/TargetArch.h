//===- TargetArch.h - The GPU architecture to compile for -------*- C++ -*-===//
#ifndef KILN_COMPILER_PIPELINE_TARGETARCH_H
#define KILN_COMPILER_PIPELINE_TARGETARCH_H

#include <string>

namespace kiln {

/// "sm_XY" of GPU 0 when a CUDA driver and a GPU are present (libcuda is
/// opened at run time), else "sm_90".
std::string defaultTargetArch();

/// cuDriverGetVersion as text ("13000") when a CUDA driver and a GPU are
/// present, else "none" (the tuning cache's driver field).
std::string gpuDriverVersion();

} // namespace kiln

#endif
