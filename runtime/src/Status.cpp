// kiln_status: creation, accessors, names of codes and dtypes.
#include "Status.h"

#include <cstring>

#include <cstdarg>
#include <cstdio>
#include <exception>
#include <new>

namespace {
// Returned when the status object itself cannot be allocated; never freed.
kiln_status_t gOutOfMemoryStatus{
    KILN_OUT_OF_MEMORY, "out of host memory (while reporting an error)"};
} // namespace

namespace kiln::rt {

kiln_status makeStatus(kiln_code code, std::string message) noexcept {
  if (code == KILN_OK)
    code = KILN_INTERNAL; // an error status with code OK would read as success
  try {
    return new kiln_status_t{code, std::move(message)};
  } catch (...) {
    return &gOutOfMemoryStatus;
  }
}

std::string format(const char *fmt, ...) {
  va_list args;
  va_start(args, fmt);
  va_list copy;
  va_copy(copy, args);
  int n = std::vsnprintf(nullptr, 0, fmt, copy);
  va_end(copy);
  std::string out;
  if (n > 0) {
    out.resize(static_cast<size_t>(n) + 1);
    std::vsnprintf(&out[0], out.size(), fmt, args);
    out.resize(static_cast<size_t>(n));
  }
  va_end(args);
  return out;
}

kiln_status statusFromException(const char *function) noexcept {
  try {
    throw;
  } catch (const std::bad_alloc &) {
    return makeStatus(KILN_OUT_OF_MEMORY,
                      std::string(function) + ": out of host memory");
  } catch (const std::exception &e) {
    return makeStatus(KILN_INTERNAL,
                      std::string(function) + ": internal error: " + e.what());
  } catch (...) {
    return makeStatus(KILN_INTERNAL,
                      std::string(function) + ": internal error");
  }
}

} // namespace kiln::rt

extern "C" {

kiln_code kiln_status_code(kiln_status status) {
  return status ? status->code : KILN_OK;
}

const char *kiln_status_message(kiln_status status) {
  return status ? status->message.c_str() : "ok";
}

void kiln_status_free(kiln_status status) {
  if (status != &gOutOfMemoryStatus)
    delete status;
}

const char *kiln_code_name(kiln_code code) {
  switch (code) {
  case KILN_OK:
    return "KILN_OK";
  case KILN_INVALID_ARGUMENT:
    return "KILN_INVALID_ARGUMENT";
  case KILN_NOT_FOUND:
    return "KILN_NOT_FOUND";
  case KILN_IO_ERROR:
    return "KILN_IO_ERROR";
  case KILN_INVALID_ENGINE:
    return "KILN_INVALID_ENGINE";
  case KILN_UNSUPPORTED_ENGINE:
    return "KILN_UNSUPPORTED_ENGINE";
  case KILN_NO_DEVICE:
    return "KILN_NO_DEVICE";
  case KILN_INCOMPATIBLE_DEVICE:
    return "KILN_INCOMPATIBLE_DEVICE";
  case KILN_DEVICE_ERROR:
    return "KILN_DEVICE_ERROR";
  case KILN_OUT_OF_MEMORY:
    return "KILN_OUT_OF_MEMORY";
  case KILN_UNIMPLEMENTED:
    return "KILN_UNIMPLEMENTED";
  case KILN_INTERNAL:
    return "KILN_INTERNAL";
  }
  return "KILN_UNKNOWN";
}

kiln_dtype kiln_dtype_from_name(const char *name) {
  if (name)
    for (int d = KILN_DTYPE_F32; d <= KILN_DTYPE_F8E5M2; ++d)
      if (std::strcmp(name, kiln_dtype_name(static_cast<kiln_dtype>(d))) == 0)
        return static_cast<kiln_dtype>(d);
  return KILN_DTYPE_INVALID;
}

const char *kiln_dtype_name(kiln_dtype dtype) {
  switch (dtype) {
  case KILN_DTYPE_F32:
    return "f32";
  case KILN_DTYPE_F16:
    return "f16";
  case KILN_DTYPE_BF16:
    return "bf16";
  case KILN_DTYPE_F64:
    return "f64";
  case KILN_DTYPE_I8:
    return "i8";
  case KILN_DTYPE_I16:
    return "i16";
  case KILN_DTYPE_I32:
    return "i32";
  case KILN_DTYPE_I64:
    return "i64";
  case KILN_DTYPE_U8:
    return "u8";
  case KILN_DTYPE_U16:
    return "u16";
  case KILN_DTYPE_U32:
    return "u32";
  case KILN_DTYPE_U64:
    return "u64";
  case KILN_DTYPE_BOOL:
    return "bool";
  case KILN_DTYPE_F8E4M3:
    return "f8e4m3";
  case KILN_DTYPE_F8E5M2:
    return "f8e5m2";
  case KILN_DTYPE_INVALID:
    break;
  }
  return "invalid";
}

size_t kiln_dtype_size(kiln_dtype dtype) {
  switch (dtype) {
  case KILN_DTYPE_F64:
  case KILN_DTYPE_I64:
  case KILN_DTYPE_U64:
    return 8;
  case KILN_DTYPE_F32:
  case KILN_DTYPE_I32:
  case KILN_DTYPE_U32:
    return 4;
  case KILN_DTYPE_F16:
  case KILN_DTYPE_BF16:
  case KILN_DTYPE_I16:
  case KILN_DTYPE_U16:
    return 2;
  case KILN_DTYPE_I8:
  case KILN_DTYPE_U8:
  case KILN_DTYPE_BOOL:
  case KILN_DTYPE_F8E4M3:
  case KILN_DTYPE_F8E5M2:
    return 1;
  case KILN_DTYPE_INVALID:
    break;
  }
  return 0;
}

} // extern "C"
