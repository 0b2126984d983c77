/*
 * The maintenance sequence itself, in assembly so that its order is exactly
 * what the Arm ARM asks for and what tests/static checks with Capstone:
 *
 *   dc cvau (or civac) per D-line;  dsb ish;  ic ivau per I-line;  dsb ish;  isb
 *
 * (Arm ARM B2.4.4 "Concurrent modification and execution of instructions"
 * and the "Instruction cache maintenance" example sequence.)
 *
 * void jf_flush_lines_aarch64(uintptr_t d_first, uintptr_t d_last,
 *                             uintptr_t i_first, uintptr_t i_last,
 *                             uintptr_t dline, uintptr_t iline, unsigned flags)
 *   x0..x1 the bytes to clean, x2..x3 the bytes to invalidate: the same
 *   range for ordinary code, the RW and RX views of double-mapped code (the
 *   clean goes through the writable alias that holds the dirty lines, the
 *   invalidate through the executable one, since a VIPT I-cache is indexed
 *   by the address that fetches). Each range is given by its LAST byte
 *   (inclusive), so one that ends at the top of the address space needs no
 *   end pointer that wrapped to 0. x4, x5 line sizes in bytes (powers of
 *   two, full 64-bit registers so that no extension is needed); w6 flags
 *   below, in the bit order of lib/state.h's geometry word.
 * The loops compare before they advance and use a plain add (no flags),
 * so the address never wraps past the last line.
 * DC and IC take the full 64-bit address in a 64-bit register.
 */
#if defined(__aarch64__) && defined(__linux__)

#define FLAG_IDC 0    /* every core has CTR_EL0.IDC: skip the clean */
#define FLAG_DIC 1    /* every core has CTR_EL0.DIC: skip the invalidate */
#define FLAG_CIVAC 2  /* Cortex-A53 r0p0-r0p2 errata: clean+invalidate */

        .text
        .p2align 4
        .globl  jf_flush_lines_aarch64
        .hidden jf_flush_lines_aarch64
        .type   jf_flush_lines_aarch64, %function
jf_flush_lines_aarch64:
        .cfi_startproc
        tbnz    w6, #FLAG_IDC, .Lclean_done
        sub     x8, x4, #1
        bic     x9, x0, x8                  // first D-line
        bic     x10, x1, x8                 // last D-line
        tbz     w6, #FLAG_CIVAC, .Lcvau_loop
        // The errata path jumps back, so the common cvau path falls through.
.Lcivac_loop:
        dc      civac, x9
        cmp     x9, x10
        add     x9, x9, x4
        b.ne    .Lcivac_loop
        b       .Lclean_done
.Lcvau_loop:
        dc      cvau, x9
        cmp     x9, x10
        add     x9, x9, x4
        b.ne    .Lcvau_loop
.Lclean_done:
        // Even with IDC a dsb is needed: it orders the stores that wrote
        // the code before the instruction fetches (CTR_EL0.IDC description).
        dsb     ish
        tbnz    w6, #FLAG_DIC, .Lsync
        sub     x8, x5, #1
        bic     x9, x2, x8                  // first I-line
        bic     x10, x3, x8                 // last I-line
.Lic_loop:
        ic      ivau, x9
        cmp     x9, x10
        add     x9, x9, x5
        b.ne    .Lic_loop
        dsb     ish
.Lsync:
        // Even with DIC this core's pipeline may hold old instructions.
        isb
        ret
        .cfi_endproc
        .size   jf_flush_lines_aarch64, . - jf_flush_lines_aarch64

/*
 * void jf_flush_sync_aarch64(void)
 *   Every core has IDC and DIC: no line needs maintenance, only the
 *   barriers. The dsb orders the stores that wrote the code before the
 *   fetches (CTR_EL0.IDC description); the isb resynchronises this core's
 *   pipeline. The flush path branches here before decoding any line size,
 *   so its cost does not depend on N (docs/BENCHMARKS.md#what-is-measured).
 */
        .p2align 4
        .globl  jf_flush_sync_aarch64
        .hidden jf_flush_sync_aarch64
        .type   jf_flush_sync_aarch64, %function
jf_flush_sync_aarch64:
        .cfi_startproc
        dsb     ish
        isb
        ret
        .cfi_endproc
        .size   jf_flush_sync_aarch64, . - jf_flush_sync_aarch64

        .section .note.GNU-stack, "", %progbits
#endif
