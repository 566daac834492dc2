//===- TuningKeys.h - The one table of tuning keys --------------*- C++ -*-===//
//
// Every tuning key of every kernel kind, declared once: its spelling (the
// tuning cache's, --set's and the kernel.launch config's), its value type and
// range, and whether it names a candidate's family for the staged search. A
// key means the same thing in every kind that takes it (`vec` is always the
// vector width, `tile_m` the block tile's rows); each kind lists the keys it
// takes (KernelKind::tuningKeys). Code reads and writes them through the
// typed constants of `keys::` (Config::get(keys::tile_m)), never by string.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_KERNELS_COMMON_TUNINGKEYS_H
#define KILN_COMPILER_KERNELS_COMMON_TUNINGKEYS_H

#include <cstdint>
#include <string>

namespace kiln::codegen {

/// The value types of tuning keys, with their ranges as text (checkText).
enum class KeyType : uint8_t {
  Name,    ///< a non-empty name (a path or variant)
  Switch,  ///< true or false
  Count,   ///< a whole number in [1, 65536] (tiles, stages, splits, widths)
  Index,   ///< a whole number in [0, 65536] (cuBLASLt's heuristic answer)
  Version, ///< a whole number in [0, 2^31 - 1] (a library version)
};

struct KeyInfo {
  const char *name;
  KeyType type;
  /// Part of a candidate's family (path, tile shape, thread layout): the
  /// staged search measures one member of each family first, and the other
  /// keys refine a family.
  bool family;

  /// Whether `text` has this key's type and range; false with `why` naming
  /// the key and the value.
  bool checkText(const std::string &text, std::string &why) const;
};

/// A typed key: Config::get/set/has/erase take it (KernelSpec.h).
template <KeyType T> struct Key {
  KeyInfo info;
  constexpr const char *name() const { return info.name; }
};

//   X(name, type, family)
// The family keys come first, in the order configFamily prints them.
#define KILN_TUNING_KEYS(X)                                                    \
  X(path, Name, true)                                                          \
  X(tile_m, Count, true)                                                       \
  X(tile_n, Count, true)                                                       \
  X(warps_m, Count, true)                                                      \
  X(warps_n, Count, true)                                                      \
  X(warpgroups, Count, true)                                                   \
  X(tma, Switch, true)                                                         \
  X(pingpong, Switch, true)                                                    \
  X(variant, Name, true)                                                       \
  X(block_m, Count, true)                                                      \
  X(tile_k, Count, false)                                                      \
  X(stages, Count, false)                                                      \
  X(stage_out, Switch, false)                                                  \
  X(split_k, Count, false)                                                     \
  X(group_m, Count, false)                                                     \
  X(cluster, Count, false)                                                     \
  X(tma_store, Switch, false)                                                  \
  X(stream_k, Switch, false)                                                   \
  X(swap_ab, Switch, false)                                                    \
  X(epi_rows, Count, false)                                                    \
  X(epi_regs, Switch, false)                                                   \
  X(algo, Index, false)                                                        \
  X(lt_version, Version, false)                                                \
  X(block_n, Count, false)                                                     \
  X(q_tiles, Count, false)                                                     \
  X(block_size, Count, false)                                                  \
  X(vec, Count, false)

namespace keys {
#define KILN_DECLARE_KEY(n, type, family)                                      \
  inline constexpr Key<KeyType::type> n{{#n, KeyType::type, family}};
KILN_TUNING_KEYS(KILN_DECLARE_KEY)
#undef KILN_DECLARE_KEY
} // namespace keys

/// The tuning key spelled `name`; null when there is none.
const KeyInfo *findTuningKey(const std::string &name);

} // namespace kiln::codegen

#endif // KILN_COMPILER_KERNELS_COMMON_TUNINGKEYS_H
