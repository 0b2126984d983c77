// The policy (lib/policy.c) and the export (lib/public_info.c) on any
// topology the probe could record: up to 300 CPUs (more than the public
// struct holds), each observed or not, with any CTR_EL0 and MIDR, and sysfs
// lines as the sysfs reader can return them (0, or 4 << 0..15).
//
// Invariants (include/jitflush.h, docs/TESTING.md "Guarantees"):
// - the global lines are encodable strides and the minimum over every CPU;
// - an observed CPU uses its CTR_EL0, an unobserved one never claims to;
// - an unobserved CPU's line is no larger than what sysfs or the MIDR table
//   said about it;
// - IDC/DIC only if every CPU was observed with them;
// - complete, status, the per-call guard and the online check follow their
//   definitions;
// - an inferred line (JITFLUSH_SRC_CLUSTER) belongs to an offline,
//   unobserved CPU, equals the lines of the observed CPU it names, and every
//   observed CPU whose recorded grouping holds it has that CPU's CTR_EL0;
// - the export agrees with the view and truncates at JITFLUSH_MAX_CPUS.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>

#include "fuzz_check.h"

extern "C" {
#include "ctr.h"
#include "midr_table.h"
#include "view.h"
}

namespace
{
struct Reader {
  const uint8_t *data;
  size_t size;
  uint8_t Byte()
  {
    if (size == 0)
      return 0;
    size--;
    return *data++;
  }
  uint64_t Bytes(int n)
  {
    uint64_t v = 0;
    for (int i = 0; i < n; i++)
      v |= static_cast<uint64_t>(Byte()) << (8 * i);
    return v;
  }
};

unsigned SysfsLine(uint8_t b)
{
  return (b & 0x10) ? 0 : 4u << (b & 0xf);
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static std::unique_ptr<jf_view> view(new jf_view());
  static std::unique_ptr<jitflush_info> info(new jitflush_info());
  Reader in{data, size};
  std::memset(view.get(), 0, sizeof *view);
  uint8_t head = in.Byte();
  view->possible_known = head & 1;
  view->probe_ran = head & 2;
  // Mostly small machines; now and then one beyond JITFLUSH_MAX_CPUS.
  unsigned n = (head & 4) ? 250 + in.Byte() % 51 : in.Byte() % 17;
  view->ncpus = view->ncpus_possible = n;
  for (unsigned i = 0; i < n; i++) {
    jitflush_cpu_info &c = view->cpus[i];
    uint8_t flags = in.Byte();
    c.cpu = static_cast<int>(i);
    c.observed = flags & 1;
    c.online = c.observed || (flags & 2);
    // Many CPUs share the first one's registers, as on real machines.
    bool same = (flags & 4) && i > 0;
    c.ctr_el0 = c.observed ? (same ? view->cpus[0].ctr_el0 : in.Bytes(5)) : 0;
    switch ((flags >> 3) & 3) {
    case 0:
      c.midr_source = JITFLUSH_SRC_NONE;
      break;
    case 1:
      c.midr_source = JITFLUSH_SRC_SYSFS;
      c.midr = in.Bytes(4);
      break;
    default:
      c.midr_source = c.observed ? JITFLUSH_SRC_CTR_EL0 : JITFLUSH_SRC_SYSFS;
      // Mostly real cores, so the table is hit.
      c.midr = (flags & 0x20) ? in.Bytes(4)
                              : (0x410fd034u | (static_cast<uint64_t>(in.Byte() & 0xf) << 4));
      break;
    }
    c.sysfs_l1i_line = SysfsLine(in.Byte());
    c.sysfs_l1d_line = SysfsLine(in.Byte());
  }

  // The kernel's groupings: a few sets over the first 16 CPUs,
  // each recorded for some of the CPUs.
  unsigned ngroups = in.Byte() % 4;
  for (unsigned k = 0; k < ngroups; k++) {
    jf_cpuset group;
    jf_cpuset_clear(&group);
    uint64_t bits = in.Bytes(2);
    for (unsigned c = 0; c < 16; c++)
      if ((bits >> c) & 1)
        jf_cpuset_add(&group, c);
    uint64_t members = in.Bytes(2);
    for (unsigned i = 0; i < n && i < 16; i++)
      if ((members >> i) & 1)
        jf_view_set_domain(view.get(), i, &group);
  }
  jf_policy_apply(view.get());
  const jf_global &g = view->global;
  bool estimated = false, inferred = false;

  FUZZ_CHECK(fuzz::EncodableLine(g.iline) && fuzz::EncodableLine(g.dline));
  bool all_observed = n > 0, all_idc = n > 0, all_dic = n > 0;
  unsigned min_i = 0, min_d = 0;
  for (unsigned i = 0; i < n; i++) {
    const jitflush_cpu_info &c = view->cpus[i];
    FUZZ_CHECK(fuzz::EncodableLine(c.iline) && fuzz::EncodableLine(c.dline));
    FUZZ_CHECK(g.iline <= c.iline && g.dline <= c.dline);
    min_i = (min_i == 0 || c.iline < min_i) ? c.iline : min_i;
    min_d = (min_d == 0 || c.dline < min_d) ? c.dline : min_d;
    estimated = estimated || c.iline_source == JITFLUSH_SRC_SYSFS ||
                c.iline_source == JITFLUSH_SRC_MIDR_TABLE || c.dline_source == JITFLUSH_SRC_SYSFS ||
                c.dline_source == JITFLUSH_SRC_MIDR_TABLE;
    if (c.iline_source == JITFLUSH_SRC_CLUSTER) {
      inferred = true;
      FUZZ_CHECK(c.dline_source == JITFLUSH_SRC_CLUSTER);
      FUZZ_CHECK(!c.observed && !c.online && !c.idc && !c.dic);
      FUZZ_CHECK(!c.sysfs_l1i_line && !c.sysfs_l1d_line);
      FUZZ_CHECK(c.inferred_from >= 0 && static_cast<unsigned>(c.inferred_from) < n);
      const jitflush_cpu_info &from = view->cpus[c.inferred_from];
      FUZZ_CHECK(from.observed && from.iline == c.iline && from.dline == c.dline);
      for (unsigned j = 0; j < n && j < JF_MAX_CPUS; j++) {
        unsigned d = view->domain_of[j];
        if (!view->cpus[j].observed || d == 0 || !jf_cpuset_has(&view->domains[d - 1], i))
          continue;
        FUZZ_CHECK(view->cpus[j].ctr_el0 == from.ctr_el0);
      }
      all_observed = all_idc = all_dic = false;
      continue;
    }
    FUZZ_CHECK(c.inferred_from == -1);
    if (c.observed) {
      jf_ctr d = jf_ctr_decode(c.ctr_el0);
      FUZZ_CHECK(c.iline == d.iline && c.dline == d.dline);
      FUZZ_CHECK(c.iline_source == JITFLUSH_SRC_CTR_EL0 && c.dline_source == JITFLUSH_SRC_CTR_EL0);
      FUZZ_CHECK(c.idc == d.idc && c.dic == d.dic);
    } else {
      FUZZ_CHECK(c.iline_source != JITFLUSH_SRC_CTR_EL0 && c.dline_source != JITFLUSH_SRC_CTR_EL0);
      FUZZ_CHECK(!c.idc && !c.dic);
      if (c.sysfs_l1i_line)
        FUZZ_CHECK(c.iline <= c.sysfs_l1i_line);
      if (c.sysfs_l1d_line)
        FUZZ_CHECK(c.dline <= c.sysfs_l1d_line);
      const jf_core *row = c.midr_source != JITFLUSH_SRC_NONE ? jf_midr_lookup(c.midr) : nullptr;
      if (row)
        FUZZ_CHECK(c.iline <= row->iline && c.dline <= row->dline);
      if (!c.sysfs_l1i_line && !row)
        FUZZ_CHECK(c.iline == JITFLUSH_FLOOR_LINE && c.iline_source == JITFLUSH_SRC_FLOOR);
    }
    all_observed = all_observed && c.observed;
    all_idc = all_idc && c.idc;
    all_dic = all_dic && c.dic;
  }
  if (n > 0)
    FUZZ_CHECK(g.iline == min_i && g.dline == min_d);
  else
    FUZZ_CHECK(g.iline == JITFLUSH_FLOOR_LINE && g.dline == JITFLUSH_FLOOR_LINE);
  FUZZ_CHECK(g.idc == all_idc && g.dic == all_dic);
  FUZZ_CHECK(!g.idc || all_observed);
  FUZZ_CHECK(g.complete == (view->possible_known && view->probe_ran && all_observed));
  FUZZ_CHECK(g.status == (g.complete ? JITFLUSH_OK : JITFLUSH_INCOMPLETE));
  bool above_floor = g.iline > JITFLUSH_FLOOR_LINE || g.dline > JITFLUSH_FLOOR_LINE;
  FUZZ_CHECK(g.per_call_guard == (!g.complete && above_floor &&
                                  (estimated || !view->possible_known || !view->probe_ran)));
  FUZZ_CHECK(g.online_check == (inferred && above_floor));

  jf_public_info(view.get(), info.get());
  FUZZ_CHECK(info->iline == g.iline && info->dline == g.dline);
  FUZZ_CHECK(info->idc == g.idc && info->dic == g.dic && info->complete == g.complete);
  FUZZ_CHECK(info->ncpus == (n < JITFLUSH_MAX_CPUS ? n : JITFLUSH_MAX_CPUS));
  FUZZ_CHECK(info->truncated == (n > JITFLUSH_MAX_CPUS));
  for (unsigned i = 0; i < info->ncpus; i++)
    FUZZ_CHECK(info->cpus[i].iline == view->cpus[i].iline &&
               info->cpus[i].cpu == view->cpus[i].cpu);
  return 0;
}
