//! The C API of `include/jitflush.h`, declared by hand (no bindgen at build
//! time). Two checks keep it true: `tests/rust/abi_check.py` compiles these
//! signatures against the header and compares every struct field and
//! constant by name, and the test `layout_matches_the_c_compiler` compares
//! every size and offset with what the C compiler laid out for the target.

// Each item is documented in include/jitflush.h, under the same name.
#![allow(non_camel_case_types, missing_docs)]

use core::ffi::{c_char, c_int, c_uint, c_void};

pub const JITFLUSH_VERSION_MAJOR: c_uint = 0;
pub const JITFLUSH_VERSION_MINOR: c_uint = 1;
pub const JITFLUSH_VERSION_PATCH: c_uint = 0;
pub const JITFLUSH_VERSION_STRING: &str = "0.1.0";
pub const JITFLUSH_MAX_CPUS: usize = 256;
pub const JITFLUSH_FLOOR_LINE: c_uint = 4;

/// `enum jitflush_status` (the int the functions return).
pub type jitflush_status = c_int;
pub const JITFLUSH_OK: jitflush_status = 0;
pub const JITFLUSH_INCOMPLETE: jitflush_status = 1;
pub const JITFLUSH_SYNC_GLOBAL: jitflush_status = 2;
pub const JITFLUSH_ERR_ARG: jitflush_status = -1;
pub const JITFLUSH_ERR_PROBE: jitflush_status = -2;
pub const JITFLUSH_ERR_UNSUPPORTED: jitflush_status = -3;
pub const JITFLUSH_ERR_SYNC: jitflush_status = -4;

/// `enum jitflush_source` (all its values are non-negative, so C compilers
/// give it an unsigned int).
pub type jitflush_source = c_uint;
pub const JITFLUSH_SRC_NONE: jitflush_source = 0;
pub const JITFLUSH_SRC_CTR_EL0: jitflush_source = 1;
pub const JITFLUSH_SRC_SYSFS: jitflush_source = 2;
pub const JITFLUSH_SRC_MIDR_TABLE: jitflush_source = 3;
pub const JITFLUSH_SRC_FLOOR: jitflush_source = 4;
pub const JITFLUSH_SRC_PLATFORM: jitflush_source = 5;
pub const JITFLUSH_SRC_CLUSTER: jitflush_source = 6;

/// `struct jitflush_cpu_info`: one possible CPU.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct jitflush_cpu_info {
    pub cpu: c_int,
    pub online: bool,
    pub observed: bool,
    pub midr: u64,
    pub midr_source: jitflush_source,
    pub ctr_el0: u64,
    pub iline: c_uint,
    pub dline: c_uint,
    pub iline_source: jitflush_source,
    pub dline_source: jitflush_source,
    pub idc: bool,
    pub dic: bool,
    pub idc_dic_source: jitflush_source,
    pub l1ip: c_uint,
    pub sysfs_l1i_line: c_uint,
    pub sysfs_l1d_line: c_uint,
    pub inferred_from: c_int,
}

/// `struct jitflush_info`: the process-wide view (about 30 KiB).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct jitflush_info {
    pub iline: c_uint,
    pub dline: c_uint,
    pub idc: bool,
    pub dic: bool,
    pub iline_source: jitflush_source,
    pub dline_source: jitflush_source,
    pub complete: bool,
    pub heterogeneous: bool,
    pub per_call_guard: bool,
    pub online_check: bool,
    pub use_dc_civac: bool,
    pub status: c_int,
    pub platform: *const c_char,
    pub method: *const c_char,
    pub ncpus_possible: c_uint,
    pub ncpus: c_uint,
    pub truncated: bool,
    pub cpus: [jitflush_cpu_info; JITFLUSH_MAX_CPUS],
}

extern "C" {
    pub fn jitflush_source_name(source: jitflush_source) -> *const c_char;
    pub fn jitflush_init() -> c_int;
    pub fn jitflush_clear_cache(begin: *mut c_void, end: *mut c_void);
    pub fn jitflush_clear_cache_dual(rw: *const c_void, rx: *const c_void, len: usize);
    pub fn jitflush_sync_cores() -> c_int;
    pub fn jitflush_clear_cache_all_threads(begin: *mut c_void, end: *mut c_void) -> c_int;
    pub fn jitflush_get_info(out: *mut jitflush_info) -> c_int;
    pub fn jitflush_midr_name(midr: u64) -> *const c_char;
    pub fn jitflush_midr_lines(midr: u64, iline: *mut c_uint, dline: *mut c_uint) -> bool;
}

/// The header's `static inline` MIDR_EL1 field helpers (Arm ARM D19.2
/// MIDR_EL1), which have no symbol to link to.
pub const fn jitflush_midr_implementer(midr: u64) -> c_uint {
    ((midr >> 24) & 0xff) as c_uint
}
pub const fn jitflush_midr_variant(midr: u64) -> c_uint {
    ((midr >> 20) & 0xf) as c_uint
}
pub const fn jitflush_midr_part(midr: u64) -> c_uint {
    ((midr >> 4) & 0xfff) as c_uint
}
pub const fn jitflush_midr_revision(midr: u64) -> c_uint {
    (midr & 0xf) as c_uint
}
