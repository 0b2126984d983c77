/* The rig of plugin_store_test.cc (store_rig.h). */
#include <glib.h>

#include "plugin_rig.h"
#include "plugin_store.h"
#include "store_rig.h"

struct plugin_rig *store_rig_new(uint64_t ctr)
{
  return plugin_rig_new(&ctr, 1);
}

void store_rig_free(struct plugin_rig *r)
{
  plugin_rig_free(r);
}

struct model *store_rig_model(struct plugin_rig *r)
{
  return r->model;
}

void store_rig_place(struct plugin_rig *r, unsigned vcpu, struct model_thread *t)
{
  plugin_store_thread_placed(r->store, vcpu, t);
}

void store_rig_store(struct plugin_rig *r, unsigned vcpu, uint64_t va, unsigned bytes, uint64_t pc)
{
  plugin_store_on_span(r->store, vcpu, va, plugin_store_span_udata(pc, bytes));
}

void store_rig_parallel(struct plugin_rig *r)
{
  plugin_store_parallel(r->store);
}

uint64_t store_rig_epoch(struct plugin_rig *r)
{
  return __atomic_load_n(&r->epoch, __ATOMIC_ACQUIRE);
}
