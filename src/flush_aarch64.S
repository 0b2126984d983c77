/*
 * The maintenance sequence itself, in assembly so that its order is exactly
 * what the Arm ARM asks for and what tests/static checks with Capstone:
 *
 *   dc cvau (or civac) per D-line;  dsb ish;  ic ivau per I-line;  dsb ish;  isb
 *
 * (Arm ARM B2.4.4 "Concurrent modification and execution of instructions"
 * and the "Instruction cache maintenance" example sequence.)
 *
 * void jf_flush_lines_aarch64(uintptr_t first, uintptr_t last,
 *                             unsigned dline, unsigned iline, unsigned flags)
 *   x0 first byte, x1 LAST byte (inclusive, so a range that ends at the top
 *   of the address space needs no end pointer that wrapped to 0);
 *   w2, w3 line sizes in bytes (powers of two); w4 flags below.
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
        uxtw    x2, w2
        uxtw    x3, w3
        tbnz    w4, #FLAG_IDC, .Lclean_done
        sub     x5, x2, #1
        bic     x6, x0, x5                  // first D-line
        bic     x7, x1, x5                  // last D-line
        tbnz    w4, #FLAG_CIVAC, .Lcivac_loop
.Lcvau_loop:
        dc      cvau, x6
        cmp     x6, x7
        add     x6, x6, x2
        b.ne    .Lcvau_loop
        b       .Lclean_done
.Lcivac_loop:
        dc      civac, x6
        cmp     x6, x7
        add     x6, x6, x2
        b.ne    .Lcivac_loop
.Lclean_done:
        // Even with IDC a dsb is needed: it orders the stores that wrote
        // the code before the instruction fetches (CTR_EL0.IDC description).
        dsb     ish
        tbnz    w4, #FLAG_DIC, .Lsync
        sub     x5, x3, #1
        bic     x6, x0, x5                  // first I-line
        bic     x7, x1, x5                  // last I-line
.Lic_loop:
        ic      ivau, x6
        cmp     x6, x7
        add     x6, x6, x3
        b.ne    .Lic_loop
        dsb     ish
.Lsync:
        // Even with DIC this core's pipeline may hold old instructions.
        isb
        ret
        .cfi_endproc
        .size   jf_flush_lines_aarch64, . - jf_flush_lines_aarch64

        .section .note.GNU-stack, "", %progbits
#endif
