/* The rig's common parts for the plugin unit tests (plugin_rig.h). */
#include <glib.h>

#include "keep.h"
#include "kernel_sync.h"
#include "plugin_alias.h"
#include "plugin_rig.h"
#include "plugin_store.h"
#include "vcpu.h"

/* The model's views and the store's watch, as plugin.c's view_* (the
 * views' context the tracker, the watch's the rig). */
static uint64_t canon_hook(uint64_t va, void *alias)
{
  return jf_alias_canon(alias, va);
}
static bool nonexec_hook(uint64_t va, void *alias)
{
  return jf_alias_nonexec_view(alias, va);
}
static void store_hook(void *rig, uint64_t va, unsigned bytes, uint64_t writer_pc)
{
  jf_alias_note_store(rig, va, bytes, writer_pc);
}

struct jf_rig *plugin_rig_new(const uint64_t *ctr, unsigned nclusters)
{
  struct jf_rig *r = g_new0(struct jf_rig, 1);
  g_mutex_init(&r->lock);
  r->vcpus = qemu_plugin_scoreboard_new(sizeof(struct jf_vcpu));
  r->keep = jf_keep_new();
  r->alias = jf_alias_new();
  const struct jf_model_views views = {canon_hook, nonexec_hook, r->alias};
  r->model = jf_model_new(ctr, nclusters, &views);
  r->kernel = jf_model_kernel_new(r->model, JF_KERNEL_SYNC_LINUX);
  r->store = jf_store_new(r);
  jf_store_watch(r->store, store_hook, r);
  return r;
}

void plugin_rig_free(struct jf_rig *r)
{
  jf_store_free(r->store);
  jf_model_kernel_free(r->kernel);
  jf_model_free(r->model);
  jf_alias_free(r->alias);
  jf_keep_free(r->keep);
  qemu_plugin_scoreboard_free(r->vcpus);
  g_mutex_clear(&r->lock);
  g_free(r);
}
