/* QEMU's plugin API across versions 5 to 7 (plugin_qemu_api.h). */
#include "plugin_qemu_api.h"

bool plugin_qemu_read_register(struct qemu_plugin_register *reg, GByteArray *buf, size_t size)
{
  g_byte_array_set_size(buf, 0);
#if defined(PLUGIN_QEMU_API_MUTANT_BOOL_AS_COUNT)
  /* The mistake this unit exists to prevent, built only for the test that
   * proves the rig refuses to run with it (tests/emu, "RefusesABroken
   * RegisterRead"): API 6's bool taken for API 5's byte count. */
  int got = (bool)qemu_plugin_read_register(reg, buf);
  return got >= (int)size;
#elif QEMU_PLUGIN_VERSION >= 6
  bool ok = qemu_plugin_read_register(reg, buf);
  return ok && buf->len >= size;
#else
  int got = qemu_plugin_read_register(reg, buf);
  return got > 0 && (size_t)got >= size && buf->len >= size;
#endif
}

bool plugin_qemu_write_register(struct qemu_plugin_register *reg, GByteArray *buf)
{
#if QEMU_PLUGIN_VERSION >= 6
  return qemu_plugin_write_register(reg, buf);
#else
  return qemu_plugin_write_register(reg, buf) > 0;
#endif
}

/* QEMU's callbacks carry no pointer the rig can use for these (API 5 and
 * 6 pass the plugin id), so the rig's function is kept here. */
static plugin_qemu_vcpu_cb vcpu_init_cb;
static plugin_qemu_vcpu_cb vcpu_exit_cb;
static plugin_qemu_exit_cb exit_cb;

#if QEMU_PLUGIN_VERSION >= 7
static void on_vcpu_init(unsigned int vcpu, void *userdata)
{
  (void)userdata;
  vcpu_init_cb(vcpu);
}

static void on_vcpu_exit(unsigned int vcpu, void *userdata)
{
  (void)userdata;
  vcpu_exit_cb(vcpu);
}

static void on_exit(void *userdata)
{
  (void)userdata;
  exit_cb();
}
#else
static void on_vcpu_init(qemu_plugin_id_t id, unsigned int vcpu)
{
  (void)id;
  vcpu_init_cb(vcpu);
}

static void on_vcpu_exit(qemu_plugin_id_t id, unsigned int vcpu)
{
  (void)id;
  vcpu_exit_cb(vcpu);
}

static void on_exit(qemu_plugin_id_t id, void *userdata)
{
  (void)id;
  (void)userdata;
  exit_cb();
}
#endif

/* API 7 registers a vCPU callback with a userdata pointer (unused here). */
#if QEMU_PLUGIN_VERSION >= 7
#define REGISTER_VCPU_CB(register_cb, id, cb) register_cb(id, cb, NULL)
#else
#define REGISTER_VCPU_CB(register_cb, id, cb) register_cb(id, cb)
#endif

void plugin_qemu_on_vcpu_init(qemu_plugin_id_t id, plugin_qemu_vcpu_cb cb)
{
  vcpu_init_cb = cb;
  REGISTER_VCPU_CB(qemu_plugin_register_vcpu_init_cb, id, on_vcpu_init);
}

void plugin_qemu_on_vcpu_exit(qemu_plugin_id_t id, plugin_qemu_vcpu_cb cb)
{
  vcpu_exit_cb = cb;
  REGISTER_VCPU_CB(qemu_plugin_register_vcpu_exit_cb, id, on_vcpu_exit);
}

void plugin_qemu_on_exit(qemu_plugin_id_t id, plugin_qemu_exit_cb cb)
{
  exit_cb = cb;
  qemu_plugin_register_atexit_cb(id, on_exit, NULL);
}

char *plugin_qemu_api_mismatch(const qemu_info_t *info)
{
  /* Each of versions 5, 6 and 7 changed how a call or a callback passes
   * its values, so only the version built for is safe to run with. */
  if (info->version.cur == QEMU_PLUGIN_VERSION) {
    return NULL;
  }
  return g_strdup_printf("the plugin was built against QEMU plugin API %d, but this QEMU offers "
                         "API %d (its oldest accepted: %d), whose calls pass values differently: "
                         "rebuild the rig against this QEMU's qemu-plugin.h",
                         QEMU_PLUGIN_VERSION, info->version.cur, info->version.min);
}
