/*
 * Releasing what a structure owns, one line per kind of container: a
 * destructor then reads as the list of what it owns, in the order it must
 * go (an index before the array it points into), instead of one line per
 * member. NULL members are skipped, as the members of a structure that
 * failed half-way through its constructor are.
 *
 *   EMU_RELEASE(g_hash_table_destroy, GHashTable, f->by_key, f->frames);
 */
#ifndef JITFLUSH_EMU_RELEASE_H
#define JITFLUSH_EMU_RELEASE_H

#include <glib.h>
#include <stddef.h>

#define EMU_RELEASE(destroy, type, ...)                                                            \
  do {                                                                                             \
    type *emu_release_all_[] = {__VA_ARGS__};                                                      \
    for (size_t emu_release_i_ = 0; emu_release_i_ < G_N_ELEMENTS(emu_release_all_);               \
         emu_release_i_++) {                                                                       \
      if (emu_release_all_[emu_release_i_]) {                                                      \
        destroy(emu_release_all_[emu_release_i_]);                                                 \
      }                                                                                            \
    }                                                                                              \
  } while (0)

#endif /* JITFLUSH_EMU_RELEASE_H */
