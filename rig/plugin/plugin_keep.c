/* Userdata kept until exit (plugin_keep.h). */
#include <glib.h>

#include "plugin_keep.h"

struct plugin_keep {
  GMutex lock;
  GPtrArray *blocks;
};

struct plugin_keep *plugin_keep_new(void)
{
  struct plugin_keep *k = g_new0(struct plugin_keep, 1);
  k->blocks = g_ptr_array_new_with_free_func(g_free);
  g_mutex_init(&k->lock);
  return k;
}

void plugin_keep_free(struct plugin_keep *keep)
{
  if (!keep) {
    return;
  }
  g_ptr_array_unref(keep->blocks);
  g_mutex_clear(&keep->lock);
  g_free(keep);
}

void *plugin_keep_until_exit(struct plugin_keep *keep, void *block)
{
  g_mutex_lock(&keep->lock);
  g_ptr_array_add(keep->blocks, block);
  g_mutex_unlock(&keep->lock);
  return block;
}
