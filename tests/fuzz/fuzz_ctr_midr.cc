// The register decoders and the core table: jf_ctr_decode and jf_log2_line
// (common/ctr.c), jf_midr_lookup, jitflush_midr_name and
// jf_midr_needs_dc_civac (lib/midr_table.c), on any 64-bit CTR_EL0 and
// MIDR_EL1 the input spells (8 bytes each, little-endian, zero-padded).
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "fuzz_check.h"

extern "C" {
#include "ctr.h"
#include "midr_table.h"
#include "jitflush.h"
}

namespace
{
uint64_t Take64(const uint8_t *&data, size_t &size)
{
  uint8_t b[8] = {0};
  size_t n = size < 8 ? size : 8;
  std::memcpy(b, data, n);
  data += n;
  size -= n;
  uint64_t v = 0;
  for (int i = 7; i >= 0; i--)
    v = (v << 8) | b[i];
  return v;
}

void CheckCtr(uint64_t ctr)
{
  jf_ctr d = jf_ctr_decode(ctr);
  // The strides: exactly 4 << field, a power of two >= 4 (Arm ARM D19.2.34).
  FUZZ_CHECK(fuzz::EncodableLine(d.iline) && d.iline == 4u << (ctr & 0xf));
  FUZZ_CHECK(fuzz::EncodableLine(d.dline) && d.dline == 4u << ((ctr >> 16) & 0xf));
  FUZZ_CHECK(jf_log2_line(d.iline) == (ctr & 0xf) + 2);
  FUZZ_CHECK(jf_log2_line(d.dline) == ((ctr >> 16) & 0xf) + 2);
  FUZZ_CHECK(d.idc == (((ctr >> 28) & 1) != 0));
  FUZZ_CHECK(d.dic == (((ctr >> 29) & 1) != 0));
  FUZZ_CHECK(d.l1ip == ((ctr >> 14) & 3));
  // Optional fields: 0 means "not given", else a power of two.
  FUZZ_CHECK(d.cwg == 0 || fuzz::EncodableLine(d.cwg));
  FUZZ_CHECK(d.erg == 0 || fuzz::EncodableLine(d.erg));
  FUZZ_CHECK((d.cwg == 0) == (((ctr >> 24) & 0xf) == 0));
  FUZZ_CHECK((d.erg == 0) == (((ctr >> 20) & 0xf) == 0));
  FUZZ_CHECK(d.tminline == 0 || fuzz::PowerOfTwo(d.tminline));
  FUZZ_CHECK((d.tminline == 0) == (((ctr >> 32) & 0x3f) == 0));
}

void CheckMidr(uint64_t midr)
{
  const jf_core *row = jf_midr_lookup(midr);
  const char *name = jitflush_midr_name(midr);
  FUZZ_CHECK((row == nullptr) == (name == nullptr));
  // Only implementer and part name a core: variant, architecture, revision
  // and the RES0 upper half never change the answer.
  const uint64_t stepping = ~static_cast<uint64_t>(JF_MIDR_CORE_MASK);
  FUZZ_CHECK(jf_midr_lookup(midr ^ stepping) == row);
  FUZZ_CHECK(jf_midr_lookup(midr & JF_MIDR_CORE_MASK) == row);
  if (row) {
    FUZZ_CHECK(row->midr == (static_cast<uint32_t>(midr) & JF_MIDR_CORE_MASK));
    FUZZ_CHECK(name == row->name && std::strlen(name) > 0);
    FUZZ_CHECK(fuzz::EncodableLine(row->iline) && fuzz::EncodableLine(row->dline));
  }
  // The A53 errata apply to r0p0-r0p2 of that core only.
  bool civac = jf_midr_needs_dc_civac(midr);
  bool a53 = (static_cast<uint32_t>(midr) & JF_MIDR_CORE_MASK) == 0x4100d030u;
  FUZZ_CHECK(civac ==
             (a53 && jitflush_midr_variant(midr) == 0 && jitflush_midr_revision(midr) <= 2));
  if (civac)
    FUZZ_CHECK(name && std::strcmp(name, "Cortex-A53") == 0);
  FUZZ_CHECK(jitflush_midr_implementer(midr) == ((midr >> 24) & 0xff));
  FUZZ_CHECK(jitflush_midr_part(midr) == ((midr >> 4) & 0xfff));
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  uint64_t ctr = Take64(data, size);
  uint64_t midr = Take64(data, size);
  CheckCtr(ctr);
  CheckMidr(midr);
  // Line sizes the log2 helper meets from sysfs: any 32-bit value.
  unsigned bytes = static_cast<unsigned>(ctr >> 32);
  unsigned l = jf_log2_line(bytes);
  FUZZ_CHECK(l <= 31);
  if (bytes >= 1)
    FUZZ_CHECK((1ull << l) <= bytes && (l == 31 || (2ull << l) > bytes));
  return 0;
}
