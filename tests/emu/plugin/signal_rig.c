/*
 * The rig of plugin_signal_test.cc (signal_rig.h): the common parts
 * (plugin_rig.c) over a loaded config, and the registers, the scheduler
 * and the signals, made as plugin.c's install makes them.
 */
#include <glib.h>

#include "rig_config.h"
#include "plugin_regs.h"
#include "plugin_rig.h"
#include "plugin_sched.h"
#include "plugin_signal.h"
#include "signal_rig.h"
#include "plugin_vcpu.h"

struct plugin_rig *signal_rig_new(const char *config_path)
{
  GError *err = NULL;
  struct rig_config *config = rig_config_load(config_path, &err);
  if (!config) {
    g_printerr("%s: %s\n", config_path, err->message);
    g_error_free(err);
    return NULL;
  }
  uint64_t *ctr = g_new0(uint64_t, config->nclusters);
  for (unsigned c = 0; c < config->nclusters; c++) {
    ctr[c] = config->clusters[c].ctr;
  }
  struct plugin_rig *r = plugin_rig_new(ctr, config->nclusters);
  g_free(ctr);
  r->config = config;
  r->regs = plugin_regs_new();
  r->sched = plugin_sched_new(r, &err);
  if (!r->sched) {
    g_printerr("scheduler: %s\n", err->message);
    g_error_free(err);
    signal_rig_free(r);
    return NULL;
  }
  r->signals = plugin_signals_new();
  plugin_regs_vcpu_init(r->regs);
  plugin_sched_vcpu_init(r, 0);
  return r;
}

void signal_rig_free(struct plugin_rig *r)
{
  plugin_signals_free(r->signals);
  plugin_sched_free(r->sched);
  plugin_regs_free(r->regs);
  rig_config_free(r->config);
  plugin_rig_free(r);
}

struct model *signal_rig_model(struct plugin_rig *r)
{
  return r->model;
}

struct model_thread *signal_rig_thread(struct plugin_rig *r)
{
  return &plugin_sched_thread(r->sched, 0)->mt;
}

uint64_t signal_rig_deliveries(struct plugin_rig *r)
{
  return plugin_vcpu(r, 0)->counts.signal_deliveries;
}

void signal_rig_syscall(struct plugin_rig *r, int64_t num, const uint64_t args[6])
{
  plugin_signals_syscall(r, num, args);
}

void signal_rig_instrument_tb(struct plugin_rig *r, struct qemu_plugin_tb *tb)
{
  plugin_signals_instrument_tb(r, tb);
}
