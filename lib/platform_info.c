/* Shared by every platform that does not probe cores itself. */
#include <string.h>

#include "platform_info.h"

void jf_platform_info(struct jitflush_info *out, const char *platform, const char *method,
                      bool coherent)
{
  memset(out, 0, offsetof(struct jitflush_info, cpus));
  out->platform = platform;
  out->method = method;
  /* A coherent I-side (x86) behaves as IDC and DIC would on ARM. */
  out->idc = out->dic = coherent;
  out->iline_source = out->dline_source = JITFLUSH_SRC_PLATFORM;
  out->complete = true;
  out->status = JITFLUSH_OK;
}
