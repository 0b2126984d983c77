// The guest's memory, registers and translation blocks for the plugin
// unit tests (qemu_guest_double.h).
#include "qemu_guest_double.h"

#include <gtest/gtest.h>

#include <cstring>

#include <glib.h>

std::map<uint64_t, uint8_t> g_mem;
std::array<uint64_t, 33> g_regs;

namespace
{
const char *const kRegNames[33] = {"x0",  "x1",  "x2",  "x3",  "x4",  "x5",  "x6",  "x7",  "x8",
                                   "x9",  "x10", "x11", "x12", "x13", "x14", "x15", "x16", "x17",
                                   "x18", "x19", "x20", "x21", "x22", "x23", "x24", "x25", "x26",
                                   "x27", "x28", "x29", "x30", "sp",  "pc"};

// What the register calls return for BYTES read or written, in the
// convention of the header compiled against: API 5 a byte count, API 6 on
// success (rig/plugin/plugin_qemu_api.h).
JF_QEMU_REGISTER_RESULT RegisterDone(size_t bytes)
{
#if QEMU_PLUGIN_VERSION >= 6
  return bytes > 0;
#else
  return static_cast<int>(bytes);
#endif
}

} // namespace

void PutGuest(uint64_t va, const void *bytes, size_t len)
{
  for (size_t i = 0; i < len; i++)
    g_mem[va + i] = static_cast<const uint8_t *>(bytes)[i];
}

extern "C" {
bool qemu_plugin_read_memory_vaddr(uint64_t addr, GByteArray *data, size_t len)
{
  for (size_t i = 0; i < len; i++) {
    auto b = g_mem.find(addr + i);
    if (b == g_mem.end())
      return false;
    g_byte_array_append(data, &b->second, 1);
  }
  return true;
}

bool qemu_plugin_write_memory_vaddr(uint64_t addr, GByteArray *data)
{
  PutGuest(addr, data->data, data->len);
  return true;
}

GArray *qemu_plugin_get_registers(void)
{
  GArray *list = g_array_new(false, false, sizeof(qemu_plugin_reg_descriptor));
  for (size_t i = 0; i < g_regs.size(); i++) {
    // A handle is the register's index + 1 (QEMU's are opaque, never NULL).
    // Members by name: API 7 added one (is_readonly, false here).
    qemu_plugin_reg_descriptor d{};
    d.handle = reinterpret_cast<struct qemu_plugin_register *>(static_cast<uintptr_t>(i + 1));
    d.name = kRegNames[i];
    g_array_append_val(list, d);
  }
  return list;
}

JF_QEMU_REGISTER_RESULT qemu_plugin_read_register(struct qemu_plugin_register *handle,
                                                  GByteArray *buf)
{
  uint64_t le = GUINT64_TO_LE(g_regs.at(reinterpret_cast<uintptr_t>(handle) - 1));
  g_byte_array_append(buf, reinterpret_cast<const guint8 *>(&le), sizeof(le));
  return RegisterDone(sizeof(le));
}

JF_QEMU_REGISTER_RESULT qemu_plugin_write_register(struct qemu_plugin_register *handle,
                                                   GByteArray *buf)
{
  uint64_t le = 0;
  memcpy(&le, buf->data, sizeof(le));
  g_regs.at(reinterpret_cast<uintptr_t>(handle) - 1) = GUINT64_FROM_LE(le);
  return RegisterDone(sizeof(le));
}

uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb)
{
  return reinterpret_cast<const FakeTb *>(tb)->vaddr;
}

void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *tb, qemu_plugin_vcpu_udata_cb_t cb,
                                          enum qemu_plugin_cb_flags flags, void *userdata)
{
  reinterpret_cast<FakeTb *>(tb)->callbacks.push_back({cb, flags, userdata});
}

void qemu_plugin_register_vcpu_init_cb(qemu_plugin_id_t, JF_QEMU_VCPU_CB_PARAMS)
{
  ADD_FAILURE() << "not called here";
}

void qemu_plugin_register_vcpu_exit_cb(qemu_plugin_id_t, JF_QEMU_VCPU_CB_PARAMS)
{
  ADD_FAILURE() << "not called here";
}

void qemu_plugin_register_atexit_cb(qemu_plugin_id_t, qemu_plugin_udata_cb_t, void *)
{
  ADD_FAILURE() << "not called here";
}
} // extern "C"
