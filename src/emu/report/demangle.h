/*
 * C++ symbol names for people: "_ZN2v88internal11CpuFeatures11FlushICacheEPvm"
 * reads as "v8::internal::CpuFeatures::FlushICache(void*, unsigned long)".
 * libstdc++'s own demangler (the Itanium C++ ABI's __cxa_demangle), the one
 * GCC's toolchain keeps current with the mangling rules.
 */
#ifndef JITFLUSH_EMU_DEMANGLE_H
#define JITFLUSH_EMU_DEMANGLE_H

#ifdef __cplusplus
extern "C" {
#endif

/* NAME demangled (g_malloc'ed), or NULL when it is not an Itanium C++
 * mangled name (C functions, a name the demangler rejects). */
char *emu_demangle(const char *name);

#ifdef __cplusplus
}
#endif

#endif /* JITFLUSH_EMU_DEMANGLE_H */
