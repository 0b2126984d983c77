/* The rig's common parts for the plugin unit tests (plugin_rig.h). */
#include <glib.h>

#include "plugin_keep.h"
#include "model_kernel_sync.h"
#include "plugin_alias.h"
#include "plugin_rig.h"
#include "plugin_store.h"
#include "plugin_vcpu.h"

/* The model's views and the store's watch, as plugin.c's view_* (the
 * views' context the tracker, the watch's the rig). */
static uint64_t canon_hook(uint64_t va, void *alias)
{
  return plugin_alias_canon(alias, va);
}
static bool nonexec_hook(uint64_t va, void *alias)
{
  return plugin_alias_nonexec_view(alias, va);
}
static void store_hook(void *rig, uint64_t va, unsigned bytes, uint64_t writer_pc)
{
  plugin_alias_note_store(rig, va, bytes, writer_pc);
}

struct plugin_rig *plugin_rig_new(const uint64_t *ctr, unsigned nclusters)
{
  struct plugin_rig *r = g_new0(struct plugin_rig, 1);
  g_mutex_init(&r->lock);
  r->vcpus = qemu_plugin_scoreboard_new(sizeof(struct plugin_vcpu));
  r->keep = plugin_keep_new();
  r->alias = plugin_alias_new();
  const struct model_views views = {canon_hook, nonexec_hook, r->alias};
  r->model = model_new(ctr, nclusters, &views);
  r->kernel = model_kernel_new(r->model, MODEL_KERNEL_SYNC_LINUX);
  r->store = plugin_store_new(r);
  plugin_store_watch(r->store, store_hook, r);
  return r;
}

void plugin_rig_free(struct plugin_rig *r)
{
  plugin_store_free(r->store);
  model_kernel_free(r->kernel);
  model_free(r->model);
  plugin_alias_free(r->alias);
  plugin_keep_free(r->keep);
  qemu_plugin_scoreboard_free(r->vcpus);
  g_mutex_clear(&r->lock);
  g_free(r);
}
