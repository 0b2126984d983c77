/* The range rules every platform shares (docs/TESTING.md, "Guarantees"). */
#ifndef JITFLUSH_INTERNAL_RANGE_H
#define JITFLUSH_INTERNAL_RANGE_H

#include <stdbool.h>
#include <stdint.h>

/*
 * [begin, end) to an inclusive last byte. Returns false when there is
 * nothing to maintain: end == begin, or end < begin (reversed, or a range
 * that would wrap through the top of the address space), as __clear_cache's
 * loops do nothing then. The one exception is end == NULL with begin !=
 * NULL: an end that wrapped to 0, i.e. a range that ends exactly at the top
 * of the address space; then *last is UINTPTR_MAX.
 */
static inline bool jf_range_last(const void *begin, const void *end, uintptr_t *last)
{
  uintptr_t first = (uintptr_t)begin, stop = (uintptr_t)end;
  if (stop <= first && !(stop == 0 && first != 0)) {
    return false;
  }
  *last = stop - 1;
  return true;
}

#endif
