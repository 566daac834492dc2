/* Compiles the public C headers as strict C99 (-pedantic-errors): kiln.h and
 * engine_format.h must stay usable from C. */
#include "kiln/engine_format.h"
#include "kiln/kiln.h"

int kiln_header_check(void);
int kiln_header_check(void) {
  kiln_tensor_info info;
  kiln_engine_header header;
  info.rank = 0;
  header.format_version = KILN_ENGINE_FORMAT_VERSION;
  return (int)info.rank + (int)header.format_version + KILN_SECTION_KIND_PLAN;
}
