/*
 * The checkpoint. QEMU user mode dies of SIGKILL (a test harness's
 * timeout, an OOM kill, a CI job's cancel) without running any plugin
 * callback, so findings that exist only in the plugin's memory are lost
 * with it. So the plugin keeps a copy of them in the runner's scratch
 * folder (checkpoint= in rig_contract.h) as they are found: a new finding
 * marks the checkpoint out of date, and the guest's next system call
 * rewrites it before the call runs. Nothing the guest makes visible
 * outside itself (output, a file, a signal to its harness) can then precede
 * the copy of a finding made before it: a harness that saw the guest do
 * something and killed it finds every finding made until then.
 *
 * Written by the guest thread itself, at a point of its own execution,
 * not by a thread of the plugin at a moment of the host's choosing: the
 * writing settles the findings (report_findings.h, report_findings_count), and a run
 * must settle them at the same points every time to give the same report
 * (docs/RIG.md, "Reproducible runs"). Under --schedule turns no other
 * guest thread runs meanwhile.
 *
 * A guest fork keeps the mark (fork(2) copies memory); a forked process
 * writes no checkpoint (it reports at its own exit, plugin_fork.c), which
 * its pid tells.
 */
#define _GNU_SOURCE /* getpid */
#include "plugin_checkpoint.h"

#include <unistd.h>

#include <glib.h>

struct plugin_checkpoint {
  void (*write)(void *ctx);
  void *ctx;
  pid_t pid;    /* the process that writes it */
  gint pending; /* something new since the last writing */
};

struct plugin_checkpoint *plugin_checkpoint_new(void (*write)(void *ctx), void *ctx)
{
  struct plugin_checkpoint *c = g_new0(struct plugin_checkpoint, 1);
  c->write = write;
  c->ctx = ctx;
  c->pid = getpid();
  return c;
}

void plugin_checkpoint_free(struct plugin_checkpoint *c)
{
  g_free(c);
}

void plugin_checkpoint_wake(struct plugin_checkpoint *c)
{
  if (c) {
    g_atomic_int_set(&c->pending, 1);
  }
}

void plugin_checkpoint_sync(struct plugin_checkpoint *c)
{
  if (!c || !g_atomic_int_get(&c->pending) || getpid() != c->pid) {
    return;
  }
  /* One writer when threads call at once (--schedule parallel). */
  if (g_atomic_int_compare_and_exchange(&c->pending, 1, 0)) {
    c->write(c->ctx);
  }
}
