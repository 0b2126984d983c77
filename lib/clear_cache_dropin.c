/*
 * The link-time drop-in (CMake option JITFLUSH_PROVIDE_CLEAR_CACHE): a
 * strong __clear_cache, so code that calls __builtin___clear_cache gets the
 * all-cores-safe flush with no source change. GCC and Clang expand the
 * builtin to a call of __clear_cache on AArch64; the linker takes the first
 * definition it sees, so libjitflush must come before libgcc (GCC) or
 * compiler-rt's builtins (Clang) on the link line (docs/VENDORING.md, "Drop-in for __clear_cache").
 */
#include "jitflush.h"

void __clear_cache(void *begin, void *end);

void __clear_cache(void *begin, void *end)
{
  jitflush_clear_cache(begin, end);
}
