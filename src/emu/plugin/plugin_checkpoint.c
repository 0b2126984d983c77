/*
 * The checkpoint thread. QEMU user mode dies of SIGKILL (a test harness's
 * timeout, an OOM kill, a CI job's cancel) without running any plugin
 * callback, so findings that exist only in the plugin's memory are lost
 * with it. This thread keeps a copy of them in the runner's scratch folder
 * (checkpoint= in rig_contract.h) as they are found: woken when a new
 * finding is recorded, it writes at once, and the guest's next system call
 * waits for that write. Nothing the guest makes visible outside itself
 * (output, a file, a signal to its harness) can then precede the copy of a
 * finding made before it: a harness that saw the guest do something and
 * killed it finds every finding made until then. Findings in quick
 * succession are written once more when the first write ends (the wake-up
 * flag is cleared before each write), and the counters are brought up to
 * date once a second.
 *
 * A guest fork keeps only the forking thread (fork(2)), so a forked
 * process has no checkpoint thread; it reports at its own exit
 * (plugin_fork.c), and wake-ups and waits there are skipped by its pid.
 */
#define _GNU_SOURCE /* pipe2 */
#include "plugin_checkpoint.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <glib.h>

/* How often the counters are brought up to date without a new finding. */
#define CHECKPOINT_PERIOD_MS 1000

struct jf_checkpoint {
  void (*write)(void *ctx);
  void *ctx;
  int pipe[2];
  pid_t pid;    /* the process whose thread reads the pipe */
  gint pending; /* a byte is in the pipe, or the thread is about to write */
  gint urgent;  /* urgent wake-ups so far */
  gint done;    /* the urgent wake-ups the last finished write covers */
  GMutex m;
  GCond written;
};

static gpointer checkpoint_thread(gpointer data)
{
  struct jf_checkpoint *c = data;
  for (;;) {
    struct pollfd p = {.fd = c->pipe[0], .events = POLLIN};
    int ready = poll(&p, 1, CHECKPOINT_PERIOD_MS);
    if (ready < 0 && errno != EINTR) {
      return NULL;
    }
    if (ready > 0) {
      char drain[64];
      while (read(c->pipe[0], drain, sizeof drain) > 0) {
      }
    }
    /* Cleared before URGENT is read: a wake-up after the read writes a
     * byte again (jf_checkpoint_wake counts first, then sets PENDING). */
    g_atomic_int_set(&c->pending, 0);
    gint covers = g_atomic_int_get(&c->urgent);
    c->write(c->ctx);
    g_mutex_lock(&c->m);
    g_atomic_int_set(&c->done, covers);
    g_cond_broadcast(&c->written);
    g_mutex_unlock(&c->m);
  }
  return NULL;
}

struct jf_checkpoint *jf_checkpoint_start(void (*write)(void *ctx), void *ctx)
{
  struct jf_checkpoint *c = g_new0(struct jf_checkpoint, 1);
  if (pipe2(c->pipe, O_CLOEXEC | O_NONBLOCK) != 0) {
    g_free(c);
    return NULL;
  }
  c->write = write;
  c->ctx = ctx;
  c->pid = getpid();
  g_mutex_init(&c->m);
  g_cond_init(&c->written);
  /* The thread and this state last as long as the process: it ends
   * while the thread may be writing, and nothing waits for it. */
  g_thread_unref(g_thread_new("jitflush-checkpoint", checkpoint_thread, c));
  return c;
}

void jf_checkpoint_wake(struct jf_checkpoint *c, bool urgent)
{
  if (!c || getpid() != c->pid) {
    return;
  }
  if (urgent) {
    g_atomic_int_inc(&c->urgent);
  }
  if (g_atomic_int_compare_and_exchange(&c->pending, 0, 1)) {
    char byte = 1;
    if (write(c->pipe[1], &byte, 1) < 0) {
      /* The pipe is full: the thread is woken already. */
    }
  }
}

void jf_checkpoint_sync(struct jf_checkpoint *c)
{
  if (!c) {
    return;
  }
  gint want = g_atomic_int_get(&c->urgent);
  if (g_atomic_int_get(&c->done) >= want || getpid() != c->pid) {
    return;
  }
  g_mutex_lock(&c->m);
  while (g_atomic_int_get(&c->done) < want) {
    g_cond_wait(&c->written, &c->m);
  }
  g_mutex_unlock(&c->m);
}
