/*
 * C++ and Rust symbol names for people:
 * "_ZN2v88internal11CpuFeatures11FlushICacheEPvm" reads as
 * "v8::internal::CpuFeatures::FlushICache(void*, unsigned long)", and a
 * Rust symbol in either of rustc's manglings (v0 "_R...", legacy
 * "_ZN...17h<16 hex digits>E") as its path. One maintained demangler for
 * all three: libiberty's cplus_demangle, the one GNU binutils and GDB use
 * and keep current with the Itanium C++ ABI and rustc's manglings.
 */
#ifndef JITFLUSH_EMU_DEMANGLE_H
#define JITFLUSH_EMU_DEMANGLE_H

#ifdef __cplusplus
extern "C" {
#endif

/* NAME demangled (g_malloc'ed), or NULL when it is not a C++ or Rust
 * mangled name (C functions, a name the demangler rejects). A Rust legacy
 * name loses its "::h<hash>" suffix and a v0 name its crate
 * disambiguators, as rustc's own demangler prints them in its default
 * (non-alternate) form. */
char *report_demangle(const char *name);

#ifdef __cplusplus
}
#endif

#endif /* JITFLUSH_EMU_DEMANGLE_H */
