//===- EngineEmitter.h - CompiledModel to engine file -----------*- C++ -*-===//
//
// The compiler's side of the engine contract: copies a codegen::CompiledModel
// field by field into the runtime's engine writer (runtime/include/kiln/
// engine_writer.h), which verifies the contents with the runtime's own
// verifier before writing.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_ENGINE_ENGINEEMITTER_H
#define KILN_COMPILER_ENGINE_ENGINEEMITTER_H

#include "compiler/codegen/CompiledModel.h"

#include "kiln/engine_writer.h"

#include <memory>
#include <string>

namespace kiln {

struct EngineProvenance {
  std::string compilerVersion; ///< "kiln 0.1.0"
  std::string modelPath;       ///< hashed (SHA-256) into the manifest
  std::string compileFlags;    ///< the kilnc command line
  std::string tuningCacheHash;
  /// Also store each kernel's CUDA source as an extra section (for
  /// kiln-inspect and debugging).
  bool keepSources = true;
};

/// The engine of `model`, ready to write (EngineWriter::writeFile, through a
/// temporary file, so an existing engine is replaced only by a complete
/// one) or to serialize; null with `error` on an inconsistent model.
std::unique_ptr<engine::EngineWriter> buildEngine(const codegen::CompiledModel &model,
                                                  const EngineProvenance &provenance,
                                                  std::string &error);

/// SHA-256 of a file as 64 lowercase hex digits; empty when unreadable.
std::string sha256File(const std::string &path);

} // namespace kiln

#endif
