/*
 * The platforms whose OS or compiler flushes on every core by itself:
 * Apple arm64 (sys_icache_invalidate), Windows (FlushInstructionCache) and
 * every other target (__builtin___clear_cache). lib/api_from_hooks.c gives them
 * the public API; each lib/impl_<platform>.c gives these hooks.
 */
#ifndef JITFLUSH_INTERNAL_OS_FLUSH_H
#define JITFLUSH_INTERNAL_OS_FLUSH_H

#include <stddef.h>

/* Makes LEN (> 0) bytes of new code at BEGIN visible to every core. */
void jf_os_flush(void *begin, size_t len);
/* The same for LEN (> 0) bytes written at RW and executed at RX. */
void jf_os_flush_dual(const void *rw, const void *rx, size_t len);

/* The platform's name and how it flushes (jitflush_get_info). */
extern const char *const jf_os_platform;
extern const char *const jf_os_method;

#endif
