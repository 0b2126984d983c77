/* Userdata kept until exit (keep.h). */
#include <glib.h>

#include "keep.h"

struct jf_keep {
  GMutex lock;
  GPtrArray *blocks;
};

struct jf_keep *jf_keep_new(void)
{
  struct jf_keep *k = g_new0(struct jf_keep, 1);
  k->blocks = g_ptr_array_new_with_free_func(g_free);
  g_mutex_init(&k->lock);
  return k;
}

void jf_keep_free(struct jf_keep *keep)
{
  if (!keep) {
    return;
  }
  g_ptr_array_unref(keep->blocks);
  g_mutex_clear(&keep->lock);
  g_free(keep);
}

void *jf_keep_until_exit(struct jf_keep *keep, void *block)
{
  g_mutex_lock(&keep->lock);
  g_ptr_array_add(keep->blocks, block);
  g_mutex_unlock(&keep->lock);
  return block;
}
