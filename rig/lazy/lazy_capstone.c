/*
 * Capstone, loaded when the plugin first decodes a word its encoding alone
 * does not decide (lazy_lib.h, plugin_decode.c): a short program whose
 * branches, system registers, hints, DMB and cache maintenance are all
 * decoded from their encodings never maps it. Capstone's library carries
 * its version in its name, as its API number does.
 */
#include <capstone/capstone.h>

#include "lazy_lib.h"

#define CAPSTONE_FUNCTIONS(FN, VOID_FN)                                                            \
  FN(cs_err, cs_open, (cs_arch a, cs_mode m, csh * h), (a, m, h))                                  \
  FN(cs_err, cs_option, (csh h, cs_opt_type t, size_t v), (h, t, v))                               \
  FN(cs_insn *, cs_malloc, (csh h), (h))                                                           \
  FN(bool, cs_disasm_iter,                                                                         \
     (csh h, const uint8_t **code, size_t *size, uint64_t *address, cs_insn *insn),                \
     (h, code, size, address, insn))                                                               \
  VOID_FN(cs_free, (cs_insn * insn, size_t count), (insn, count))                                  \
  FN(cs_err, cs_close, (csh * h), (h))

LAZY_LIBRARY("libcapstone.so." G_STRINGIFY(CS_API_MAJOR), "to decode an AArch64 system instruction",
             CAPSTONE_FUNCTIONS)
