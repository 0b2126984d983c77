/*
 * The rig of plugin_alias_test.cc (alias_rig.h): the parts of plugin.c's
 * install (new_rig, new_model, view_*) the alias unit uses, through the
 * real constructors. The scoreboard comes from the test's stand-in for
 * QEMU's (plugin_alias_test.cc).
 */
#include <glib.h>

#include "alias_rig.h"
#include "keep.h"
#include "plugin_alias.h"
#include "plugin_store.h"
#include "vcpu.h"

/* The model's views hooks, as plugin.c's view_* (CTX the tracker). */
static uint64_t canon_hook(uint64_t va, void *alias)
{
  return jf_alias_canon(alias, va);
}
static bool nonexec_hook(uint64_t va, void *alias)
{
  return jf_alias_nonexec_view(alias, va);
}
static void store_hook(void *alias, uint64_t va, unsigned bytes)
{
  jf_alias_note_store(alias, va, bytes);
}

struct jf_rig *alias_rig_new(uint64_t ctr)
{
  struct jf_rig *r = g_new0(struct jf_rig, 1);
  g_mutex_init(&r->lock);
  r->vcpus = qemu_plugin_scoreboard_new(sizeof(struct jf_vcpu));
  r->keep = jf_keep_new();
  r->alias = jf_alias_new();
  const struct jf_model_views views = {canon_hook, nonexec_hook, r->alias};
  r->model = jf_model_new(&ctr, 1, &views);
  r->store = jf_store_new(r);
  jf_store_watch(r->store, store_hook, r->alias);
  return r;
}

void alias_rig_free(struct jf_rig *r)
{
  jf_store_free(r->store);
  jf_model_free(r->model);
  jf_alias_free(r->alias);
  jf_keep_free(r->keep);
  qemu_plugin_scoreboard_free(r->vcpus);
  g_mutex_clear(&r->lock);
  g_free(r);
}

struct jf_model *alias_rig_model(struct jf_rig *r)
{
  return r->model;
}

uint64_t alias_rig_canon(struct jf_rig *r, uint64_t va)
{
  return jf_alias_canon(r->alias, va);
}

bool alias_rig_nonexec_view(struct jf_rig *r, uint64_t va)
{
  return jf_alias_nonexec_view(r->alias, va);
}

void alias_rig_note_store(struct jf_rig *r, uint64_t va, unsigned bytes)
{
  jf_alias_note_store(r->alias, va, bytes);
}

void alias_rig_refresh_views(struct jf_rig *r)
{
  jf_alias_refresh_views(r);
}

void alias_rig_syscall(struct jf_rig *r, int64_t num, const uint64_t args[6], int64_t ret)
{
  jf_alias_syscall(r, num, args);
  jf_alias_syscall_ret(r, num, ret);
}
