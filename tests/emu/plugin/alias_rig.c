/*
 * The rig of plugin_alias_test.cc (alias_rig.h): the common parts
 * (plugin_rig.c), which are all the alias unit uses.
 */
#include <glib.h>

#include "alias_rig.h"
#include "plugin_alias.h"
#include "plugin_rig.h"

struct plugin_rig *alias_rig_new(uint64_t ctr)
{
  return plugin_rig_new(&ctr, 1);
}

void alias_rig_free(struct plugin_rig *r)
{
  plugin_rig_free(r);
}

struct model *alias_rig_model(struct plugin_rig *r)
{
  return r->model;
}

uint64_t alias_rig_canon(struct plugin_rig *r, uint64_t va)
{
  return plugin_alias_canon(r->alias, va);
}

bool alias_rig_nonexec_view(struct plugin_rig *r, uint64_t va)
{
  return plugin_alias_nonexec_view(r->alias, va);
}

void alias_rig_note_store(struct plugin_rig *r, uint64_t va, unsigned bytes)
{
  plugin_alias_note_store(r, va, bytes, 0);
}

void alias_rig_refresh_views(struct plugin_rig *r)
{
  plugin_alias_refresh_views(r);
}

void alias_rig_syscall(struct plugin_rig *r, int64_t num, const uint64_t args[6], int64_t ret)
{
  plugin_alias_syscall(r, num, args);
  plugin_alias_syscall_ret(r, num, ret);
}
