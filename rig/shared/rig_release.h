/*
 * Releasing what a structure owns, one line per kind of container: a
 * destructor then reads as the list of what it owns, in the order it must
 * go (an index before the array it points into), instead of one line per
 * member. NULL members are skipped, as the members of a structure that
 * failed half-way through its constructor are.
 *
 *   RIG_RELEASE(g_hash_table_destroy, GHashTable, f->by_key, f->frames);
 */
#ifndef JITFLUSH_EMU_RELEASE_H
#define JITFLUSH_EMU_RELEASE_H

#include <glib.h>
#include <stddef.h>

#define RIG_RELEASE(destroy, type, ...)                                                            \
  do {                                                                                             \
    type *rig_release_all_[] = {__VA_ARGS__};                                                      \
    for (size_t rig_release_i_ = 0; rig_release_i_ < G_N_ELEMENTS(rig_release_all_);               \
         rig_release_i_++) {                                                                       \
      if (rig_release_all_[rig_release_i_]) {                                                      \
        destroy(rig_release_all_[rig_release_i_]);                                                 \
      }                                                                                            \
    }                                                                                              \
  } while (0)

#endif /* JITFLUSH_EMU_RELEASE_H */
