// kiln_status internals: the status object and helpers that build messages.
#ifndef KILN_RUNTIME_STATUS_H
#define KILN_RUNTIME_STATUS_H

#include "kiln/kiln.h"

#include <string>

struct kiln_status_t {
  kiln_code code;
  std::string message;
};

namespace kiln::rt {

/// Makes an error status. Never returns NULL (with a code other than KILN_OK):
/// when even the status cannot be allocated it returns a static
/// out-of-memory status that kiln_status_free leaves alone.
kiln_status makeStatus(kiln_code code, std::string message) noexcept;

/// printf-style formatting into a std::string.
std::string format(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/// A status for a C++ exception caught at the C API boundary.
kiln_status statusFromException(const char *function) noexcept;

/// Returns from the enclosing function when `expr` yields an error status.
#define KILN_RETURN_IF_ERROR(expr)                                             \
  do {                                                                         \
    kiln_status kiln_status_tmp_ = (expr);                                     \
    if (kiln_status_tmp_)                                                      \
      return kiln_status_tmp_;                                                 \
  } while (0)

} // namespace kiln::rt

#endif // KILN_RUNTIME_STATUS_H
