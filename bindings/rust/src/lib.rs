//! Make freshly written machine code visible to instruction fetch, correctly
//! on every core of a heterogeneous (big.LITTLE) ARM64 system.
//!
//! This crate is jitflush's C library, compiled in by its build script, with
//! a safe API. On AArch64 the cache-maintenance stride comes from `CTR_EL0`,
//! and on some SoCs the cores disagree (Samsung Exynos 8890: 128-byte I-cache
//! lines on the big cores, 64 on the LITTLE ones). A stride read once, or
//! read on every call, skips lines on the smaller cores; jitflush measures
//! every core up front and flushes with the minimum over all of them.
//! On platforms whose caches are coherent (x86) a flush does nothing.
//!
//! # Example
//!
//! Write code, flush it, then run it (here only flushed: which bytes are
//! code depends on the CPU):
//!
//! ```
//! let mut code = vec![0u8; 256];
//! code[..4].copy_from_slice(&0xd65f03c0u32.to_le_bytes()); // AArch64 "ret"
//! // ... make the memory executable, then, before running it:
//! jitflush::flush(&code);
//! // Other threads may run it too: flush and make every thread resynchronise.
//! match jitflush::flush_all_threads(&code) {
//!     Ok(_) => {}
//!     Err(jitflush::Error::Unsupported) => { /* stop or signal the threads yourself */ }
//!     Err(e) => panic!("{e}"),
//! }
//! let facts = jitflush::facts();
//! println!("{}: I-line {} bytes, D-line {} bytes ({})",
//!          facts.platform, facts.iline, facts.dline, facts.iline_source.name());
//! ```
//!
//! # Features
//!
//! `std` (default): [`Info`] (the per-CPU records, boxed) and
//! `std::error::Error` for [`Error`]. Without it the crate is `no_std`: the
//! flushes, [`sync_cores`], [`facts`] and [`Error`] stay.
//!
//! The reference is docs/RUST.md in jitflush's repository; the C functions
//! are in [`sys`].

#![cfg_attr(not(feature = "std"), no_std)]
#![warn(missing_docs)]

#[cfg(all(test, not(feature = "std")))]
extern crate std;

pub mod sys;

use core::ffi::{c_char, c_void, CStr};
use core::fmt;
use core::mem::MaybeUninit;

/// This crate's version: the C library's (`JITFLUSH_VERSION_STRING`).
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
/// Capacity of the per-CPU records (`JITFLUSH_MAX_CPUS`).
pub const MAX_CPUS: usize = sys::JITFLUSH_MAX_CPUS;
/// The stride used when nothing is known about a CPU (`JITFLUSH_FLOOR_LINE`).
pub const FLOOR_LINE: u32 = sys::JITFLUSH_FLOOR_LINE;

/// A non-negative status: the call did its work.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Status {
    /// `JITFLUSH_OK`: every possible CPU was observed, or the sync was the
    /// fast one.
    Ok,
    /// `JITFLUSH_INCOMPLETE`: some CPUs were not observed; the stride covers
    /// them from sysfs, the MIDR table or the floor. Flushes are safe.
    Incomplete,
    /// `JITFLUSH_SYNC_GLOBAL`: the sync used the slower
    /// `MEMBARRIER_CMD_GLOBAL` (Linux 4.3 to 4.15).
    SyncGlobal,
}

/// A negative status of the C library.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Error {
    /// `JITFLUSH_ERR_ARG`: an invalid argument.
    Arg,
    /// `JITFLUSH_ERR_PROBE`: the probe could not run at all (no thread);
    /// flushes use what sysfs says, or the floor, and stay safe.
    Probe,
    /// `JITFLUSH_ERR_UNSUPPORTED`: no way to synchronise other cores here
    /// (no `membarrier`): stop or signal the other threads yourself.
    Unsupported,
    /// `JITFLUSH_ERR_SYNC`: the OS refused the synchronisation call.
    Sync,
    /// A status this version of the crate does not know.
    Other(i32),
}

/// Maps a C status to `Ok(Status)` or `Err(Error)`.
pub fn status(code: i32) -> Result<Status, Error> {
    match code {
        sys::JITFLUSH_OK => Ok(Status::Ok),
        sys::JITFLUSH_INCOMPLETE => Ok(Status::Incomplete),
        sys::JITFLUSH_SYNC_GLOBAL => Ok(Status::SyncGlobal),
        sys::JITFLUSH_ERR_ARG => Err(Error::Arg),
        sys::JITFLUSH_ERR_PROBE => Err(Error::Probe),
        sys::JITFLUSH_ERR_UNSUPPORTED => Err(Error::Unsupported),
        sys::JITFLUSH_ERR_SYNC => Err(Error::Sync),
        other => Err(Error::Other(other)),
    }
}

impl Status {
    /// The C library's status (`JITFLUSH_OK`, `JITFLUSH_INCOMPLETE`,
    /// `JITFLUSH_SYNC_GLOBAL`).
    pub fn code(self) -> i32 {
        match self {
            Status::Ok => sys::JITFLUSH_OK,
            Status::Incomplete => sys::JITFLUSH_INCOMPLETE,
            Status::SyncGlobal => sys::JITFLUSH_SYNC_GLOBAL,
        }
    }
}

impl Error {
    /// The C library's status for this error.
    pub fn code(self) -> i32 {
        match self {
            Error::Arg => sys::JITFLUSH_ERR_ARG,
            Error::Probe => sys::JITFLUSH_ERR_PROBE,
            Error::Unsupported => sys::JITFLUSH_ERR_UNSUPPORTED,
            Error::Sync => sys::JITFLUSH_ERR_SYNC,
            Error::Other(code) => code,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match self {
            Error::Arg => "invalid argument",
            Error::Probe => "the CPU probe could not run (flushes use sysfs or the floor)",
            Error::Unsupported => "no way to synchronise other cores on this system",
            Error::Sync => "the OS refused the synchronisation call",
            Error::Other(_) => "unknown status",
        };
        write!(f, "jitflush: {what} (status {})", self.code())
    }
}

impl core::error::Error for Error {}

/// Probes every CPU once and fixes the flush geometry for the life of the
/// process (`jitflush_init`). Optional: the first flush does it. Call it at
/// start-up if a first flush may come from a signal handler.
/// `Err(Error::Probe)` still leaves every later flush safe.
pub fn init() -> Result<Status, Error> {
    // SAFETY: no arguments; thread-safe and idempotent.
    status(unsafe { sys::jitflush_init() })
}

/// Makes the instructions in `code` visible to instruction fetch on every
/// core (`jitflush_clear_cache` over the slice). Other threads that may be
/// running the old code must still resynchronise: [`sync_cores`], or use
/// [`flush_all_threads`].
pub fn flush(code: &[u8]) {
    let range = code.as_ptr_range();
    // SAFETY: a slice is mapped and readable over its whole length.
    unsafe { flush_range(range.start, range.end) }
}

/// [`flush`] over `[begin, end)`: `jitflush_clear_cache`, a drop-in for
/// `__builtin___clear_cache`. An empty or reversed range does nothing.
///
/// # Safety
///
/// Every byte of the range must be mapped (an unmapped line faults with
/// SIGSEGV, as for `__clear_cache`).
pub unsafe fn flush_range(begin: *const u8, end: *const u8) {
    sys::jitflush_clear_cache(begin as *mut c_void, end as *mut c_void)
}

/// Double-mapped (W^X) code: the same pages at `rw` (writable, where the new
/// bytes were written) and at `rx` (executable). Cleans the data cache
/// through `rw` and invalidates the instruction cache through `rx`
/// (`jitflush_clear_cache_dual`): flushing only the RW view leaves the RX
/// alias stale on a VIPT instruction cache (Cortex-A53, A55, Exynos M1).
/// `Err(Error::Arg)` when the two views differ in length.
pub fn flush_dual(rw: &[u8], rx: &[u8]) -> Result<(), Error> {
    if rw.len() != rx.len() {
        return Err(Error::Arg);
    }
    // SAFETY: both slices are mapped and readable over len bytes.
    unsafe { flush_dual_raw(rw.as_ptr(), rx.as_ptr(), rw.len()) };
    Ok(())
}

/// [`flush_dual`] over raw views of `len` bytes each, for an RX view the
/// program holds no slice of.
///
/// # Safety
///
/// `len` bytes at `rw` and at `rx` must be mapped.
pub unsafe fn flush_dual_raw(rw: *const u8, rx: *const u8, len: usize) {
    sys::jitflush_clear_cache_dual(rw as *const c_void, rx as *const c_void, len)
}

/// Makes every other thread of the process pass a context synchronisation
/// event before it next executes an instruction (`jitflush_sync_cores`:
/// Linux's `membarrier`). Call it after the flush, before other threads run
/// the new code. `Ok(Status::SyncGlobal)` on Linux 4.3 to 4.15;
/// `Err(Error::Unsupported)` where there is no such call.
pub fn sync_cores() -> Result<Status, Error> {
    // SAFETY: no arguments; thread-safe.
    status(unsafe { sys::jitflush_sync_cores() })
}

/// [`flush`] then [`sync_cores`] (`jitflush_clear_cache_all_threads`): the
/// common case of code that other threads may run, in one call.
pub fn flush_all_threads(code: &[u8]) -> Result<Status, Error> {
    let range = code.as_ptr_range();
    // SAFETY: a slice is mapped and readable over its whole length.
    status(unsafe {
        sys::jitflush_clear_cache_all_threads(range.start as *mut c_void, range.end as *mut c_void)
    })
}

/// Where a number came from, strongest first (`enum jitflush_source`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Source {
    /// Not known.
    None,
    /// `CTR_EL0` / `MIDR_EL1` read on that very CPU.
    CtrEl0,
    /// `/sys/devices/system/cpu/cpuN/...`.
    Sysfs,
    /// jitflush's table of known cores, by MIDR.
    MidrTable,
    /// [`FLOOR_LINE`]: nothing was known.
    Floor,
    /// Fixed by the platform (coherent x86).
    Platform,
    /// An offline CPU's lines, taken from the observed CPUs of its cluster.
    Cluster,
}

impl Source {
    fn from_c(source: sys::jitflush_source) -> Source {
        match source {
            sys::JITFLUSH_SRC_CTR_EL0 => Source::CtrEl0,
            sys::JITFLUSH_SRC_SYSFS => Source::Sysfs,
            sys::JITFLUSH_SRC_MIDR_TABLE => Source::MidrTable,
            sys::JITFLUSH_SRC_FLOOR => Source::Floor,
            sys::JITFLUSH_SRC_PLATFORM => Source::Platform,
            sys::JITFLUSH_SRC_CLUSTER => Source::Cluster,
            _ => Source::None,
        }
    }

    fn to_c(self) -> sys::jitflush_source {
        match self {
            Source::None => sys::JITFLUSH_SRC_NONE,
            Source::CtrEl0 => sys::JITFLUSH_SRC_CTR_EL0,
            Source::Sysfs => sys::JITFLUSH_SRC_SYSFS,
            Source::MidrTable => sys::JITFLUSH_SRC_MIDR_TABLE,
            Source::Floor => sys::JITFLUSH_SRC_FLOOR,
            Source::Platform => sys::JITFLUSH_SRC_PLATFORM,
            Source::Cluster => sys::JITFLUSH_SRC_CLUSTER,
        }
    }

    /// The library's short name: "ctr_el0", "sysfs", "midr_table", "floor",
    /// "platform", "cluster" or "none" (as jitflush-info prints it).
    pub fn name(self) -> &'static str {
        // SAFETY: jitflush_source_name returns a static string, never NULL.
        unsafe { static_str(sys::jitflush_source_name(self.to_c())) }.unwrap_or("none")
    }
}

/// A NUL-terminated string the C library keeps for the life of the process.
///
/// # Safety
///
/// `p` is NULL or points to a static NUL-terminated string.
unsafe fn static_str(p: *const c_char) -> Option<&'static str> {
    if p.is_null() {
        None
    } else {
        CStr::from_ptr(p).to_str().ok()
    }
}

/// The process-wide facts every flush uses (`struct jitflush_info` without
/// its per-CPU records, which [`Info`] has).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Facts {
    /// I-cache line used by every flush: the minimum over every possible
    /// CPU and source; 0 where no maintenance is needed.
    pub iline: u32,
    /// D-cache line used by every flush; 0 where no maintenance is needed.
    pub dline: u32,
    /// `CTR_EL0.IDC` on every CPU: no D-cache clean needed.
    pub idc: bool,
    /// `CTR_EL0.DIC` on every CPU: no I-cache invalidation needed.
    pub dic: bool,
    /// Source of the CPU that set [`Facts::iline`].
    pub iline_source: Source,
    /// Source of the CPU that set [`Facts::dline`].
    pub dline_source: Source,
    /// Every possible CPU was observed through `CTR_EL0`.
    pub complete: bool,
    /// The observed CPUs disagree on a line, IDC or DIC.
    pub heterogeneous: bool,
    /// Each flush also reads this core's `CTR_EL0`.
    pub per_call_guard: bool,
    /// Some CPU's lines are inferred from its cluster: each flush checks for
    /// CPUs that came online since the probe.
    pub online_check: bool,
    /// A Cortex-A53 r0p0-r0p2 is present: flushes clean with `dc civac`.
    pub use_dc_civac: bool,
    /// What the probe ([`init`]) returned.
    pub status: Result<Status, Error>,
    /// The platform, e.g. "aarch64-linux", "x86_64".
    pub platform: &'static str,
    /// How this platform flushes, in a few words.
    pub method: &'static str,
    /// Possible CPUs on the machine.
    pub ncpus_possible: u32,
    /// More possible CPUs than [`MAX_CPUS`]: some per-CPU records are left
    /// out (the stride still covers every CPU).
    pub truncated: bool,
}

impl Facts {
    fn from_c(raw: &sys::jitflush_info) -> Facts {
        Facts {
            iline: raw.iline,
            dline: raw.dline,
            idc: raw.idc,
            dic: raw.dic,
            iline_source: Source::from_c(raw.iline_source),
            dline_source: Source::from_c(raw.dline_source),
            complete: raw.complete,
            heterogeneous: raw.heterogeneous,
            per_call_guard: raw.per_call_guard,
            online_check: raw.online_check,
            use_dc_civac: raw.use_dc_civac,
            status: status(raw.status),
            // SAFETY: the library's platform and method are static strings.
            platform: unsafe { static_str(raw.platform) }.unwrap_or(""),
            method: unsafe { static_str(raw.method) }.unwrap_or(""),
            ncpus_possible: raw.ncpus_possible,
            truncated: raw.truncated,
        }
    }
}

/// Reads the raw view into `out` (`jitflush_get_info`), probing first if
/// nobody did.
fn get_info(out: &mut MaybeUninit<sys::jitflush_info>) -> &sys::jitflush_info {
    // SAFETY: out is valid for writes of one jitflush_info, which
    // jitflush_get_info fills completely for a non-NULL pointer.
    unsafe {
        sys::jitflush_get_info(out.as_mut_ptr());
        out.assume_init_ref()
    }
}

/// The process-wide facts, probing first if nobody did. Without `std` this
/// reads the C view (about 30 KiB) on the stack; [`Info`] boxes it.
pub fn facts() -> Facts {
    let mut raw = MaybeUninit::uninit();
    Facts::from_c(get_info(&mut raw))
}

/// One possible CPU (`struct jitflush_cpu_info`). Line sizes are in bytes,
/// 0 when not known.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cpu {
    /// Logical CPU number.
    pub cpu: u32,
    /// Online when the probe ran.
    pub online: bool,
    /// `MIDR_EL1` and where it came from; `None` when not known.
    pub midr: Option<(u64, Source)>,
    /// Raw `CTR_EL0` when it was read on this CPU.
    pub ctr_el0: Option<u64>,
    /// I-cache line used for this CPU.
    pub iline: u32,
    /// D-cache line used for this CPU.
    pub dline: u32,
    /// Source of [`Cpu::iline`].
    pub iline_source: Source,
    /// Source of [`Cpu::dline`].
    pub dline_source: Source,
    /// `CTR_EL0.IDC` (false when unknown).
    pub idc: bool,
    /// `CTR_EL0.DIC` (false when unknown).
    pub dic: bool,
    /// Source of [`Cpu::idc`] and [`Cpu::dic`].
    pub idc_dic_source: Source,
    /// `CTR_EL0.L1Ip`: 2 VIPT, 3 PIPT; 0 when not observed.
    pub l1ip: u32,
    /// sysfs L1 instruction `coherency_line_size` (0: none).
    pub sysfs_l1i_line: u32,
    /// sysfs L1 data `coherency_line_size` (0: none).
    pub sysfs_l1d_line: u32,
    /// Lines inferred from the cluster ([`Source::Cluster`]): the lowest
    /// observed CPU they were taken from.
    pub inferred_from: Option<u32>,
}

impl Cpu {
    fn from_c(raw: &sys::jitflush_cpu_info) -> Cpu {
        Cpu {
            cpu: raw.cpu as u32,
            online: raw.online,
            midr: (raw.midr_source != sys::JITFLUSH_SRC_NONE)
                .then(|| (raw.midr, Source::from_c(raw.midr_source))),
            ctr_el0: raw.observed.then_some(raw.ctr_el0),
            iline: raw.iline,
            dline: raw.dline,
            iline_source: Source::from_c(raw.iline_source),
            dline_source: Source::from_c(raw.dline_source),
            idc: raw.idc,
            dic: raw.dic,
            idc_dic_source: Source::from_c(raw.idc_dic_source),
            l1ip: raw.l1ip,
            sysfs_l1i_line: raw.sysfs_l1i_line,
            sysfs_l1d_line: raw.sysfs_l1d_line,
            inferred_from: (raw.inferred_from >= 0).then_some(raw.inferred_from as u32),
        }
    }

    /// The core's name in jitflush's MIDR table, e.g. "Cortex-A53".
    pub fn core_name(&self) -> Option<&'static str> {
        self.midr.and_then(|(midr, _)| midr_name(midr))
    }
}

/// The probe's whole view: [`Facts`] and one [`Cpu`] per possible CPU.
#[cfg(feature = "std")]
pub struct Info {
    raw: std::boxed::Box<sys::jitflush_info>,
}

#[cfg(feature = "std")]
impl Info {
    /// Reads the view (`jitflush_get_info`), probing first if nobody did.
    pub fn get() -> Info {
        let mut raw = std::boxed::Box::new(MaybeUninit::uninit());
        get_info(&mut raw);
        // SAFETY: get_info initialised it.
        Info {
            raw: unsafe { std::boxed::Box::from_raw(std::boxed::Box::into_raw(raw).cast()) },
        }
    }

    /// The process-wide facts.
    pub fn facts(&self) -> Facts {
        Facts::from_c(&self.raw)
    }

    /// The per-CPU records, by logical CPU number.
    pub fn cpus(&self) -> impl ExactSizeIterator<Item = Cpu> + '_ {
        let n = (self.raw.ncpus as usize).min(MAX_CPUS);
        self.raw.cpus[..n].iter().map(Cpu::from_c)
    }

    /// The C view itself.
    pub fn raw(&self) -> &sys::jitflush_info {
        &self.raw
    }
}

#[cfg(feature = "std")]
impl fmt::Debug for Info {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Info")
            .field("facts", &self.facts())
            .field("cpus", &self.cpus().collect::<std::vec::Vec<_>>())
            .finish()
    }
}

/// The core's name in jitflush's table of known cores, by `MIDR_EL1`.
pub fn midr_name(midr: u64) -> Option<&'static str> {
    // SAFETY: the table's names are static strings; NULL when unknown.
    unsafe { static_str(sys::jitflush_midr_name(midr)) }
}

/// The L1 (I-line, D-line) in bytes jitflush's table gives for `midr`'s core.
pub fn midr_lines(midr: u64) -> Option<(u32, u32)> {
    let (mut i, mut d) = (0, 0);
    // SAFETY: two valid out-pointers.
    unsafe { sys::jitflush_midr_lines(midr, &mut i, &mut d) }.then_some((i, d))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_is_the_c_librarys() {
        // JITFLUSH_C_VERSION: the header build.rs compiled the library from.
        assert_eq!(VERSION, env!("JITFLUSH_C_VERSION"));
        assert_eq!(sys::JITFLUSH_VERSION_STRING, env!("JITFLUSH_C_VERSION"));
    }

    extern "C" {
        fn jitflush_rs_abi_layout(out: *mut *const i64) -> usize;
    }

    #[test]
    fn layout_matches_the_c_compiler() {
        use core::mem::{align_of, offset_of, size_of};
        use sys::{jitflush_cpu_info as C, jitflush_info as I};
        let rust: &[usize] = &[
            size_of::<C>(),
            align_of::<C>(),
            offset_of!(C, cpu),
            offset_of!(C, online),
            offset_of!(C, observed),
            offset_of!(C, midr),
            offset_of!(C, midr_source),
            offset_of!(C, ctr_el0),
            offset_of!(C, iline),
            offset_of!(C, dline),
            offset_of!(C, iline_source),
            offset_of!(C, dline_source),
            offset_of!(C, idc),
            offset_of!(C, dic),
            offset_of!(C, idc_dic_source),
            offset_of!(C, l1ip),
            offset_of!(C, sysfs_l1i_line),
            offset_of!(C, sysfs_l1d_line),
            offset_of!(C, inferred_from),
            size_of::<I>(),
            align_of::<I>(),
            offset_of!(I, iline),
            offset_of!(I, dline),
            offset_of!(I, idc),
            offset_of!(I, dic),
            offset_of!(I, iline_source),
            offset_of!(I, dline_source),
            offset_of!(I, complete),
            offset_of!(I, heterogeneous),
            offset_of!(I, per_call_guard),
            offset_of!(I, online_check),
            offset_of!(I, use_dc_civac),
            offset_of!(I, status),
            offset_of!(I, platform),
            offset_of!(I, method),
            offset_of!(I, ncpus_possible),
            offset_of!(I, ncpus),
            offset_of!(I, truncated),
            offset_of!(I, cpus),
            size_of::<sys::jitflush_source>(),
            size_of::<sys::jitflush_status>(),
            size_of::<bool>(),
        ];
        let mut table = core::ptr::null();
        // SAFETY: abi/layout.c returns a static table of that many rows.
        let c = unsafe {
            let n = jitflush_rs_abi_layout(&mut table);
            core::slice::from_raw_parts(table, n)
        };
        let c: std::vec::Vec<usize> = c.iter().map(|&v| v as usize).collect();
        assert_eq!(
            rust,
            &c[..],
            "src/sys.rs and abi/layout.c disagree (row by row)"
        );
    }

    #[test]
    fn statuses_map_both_ways() {
        assert_eq!(status(0), Ok(Status::Ok));
        assert_eq!(status(1), Ok(Status::Incomplete));
        assert_eq!(status(2), Ok(Status::SyncGlobal));
        for s in [Status::Ok, Status::Incomplete, Status::SyncGlobal] {
            assert_eq!(status(s.code()), Ok(s));
        }
        for e in [
            Error::Arg,
            Error::Probe,
            Error::Unsupported,
            Error::Sync,
            Error::Other(-9),
        ] {
            assert_eq!(status(e.code()), Err(e));
        }
        assert_eq!(Error::Unsupported.code(), -3);
        assert!(std::format!("{}", Error::Sync).contains("status -4"));
    }

    #[test]
    fn source_names_are_the_librarys() {
        let names: std::vec::Vec<_> = [
            Source::None,
            Source::CtrEl0,
            Source::Sysfs,
            Source::MidrTable,
            Source::Floor,
            Source::Platform,
            Source::Cluster,
        ]
        .iter()
        .map(|s| s.name())
        .collect();
        assert_eq!(
            names,
            [
                "none",
                "ctr_el0",
                "sysfs",
                "midr_table",
                "floor",
                "platform",
                "cluster"
            ]
        );
    }

    #[test]
    fn midr_table_knows_the_exynos_8890_cores() {
        // Cortex-A53 r0p4 (implementer 0x41, part 0xd03) and Exynos M1
        // (implementer 0x53 Samsung, part 0x001).
        let a53 = 0x410f_d034;
        assert_eq!(midr_name(a53), Some("Cortex-A53"));
        assert_eq!(midr_lines(a53), Some((64, 64)));
        assert_eq!(sys::jitflush_midr_part(a53), 0xd03);
        assert_eq!(midr_name(0), None);
        assert_eq!(midr_lines(0), None);
    }

    #[test]
    fn dual_views_of_different_length_are_an_argument_error() {
        let a = [0u8; 16];
        assert_eq!(flush_dual(&a, &a[..8]), Err(Error::Arg));
        assert_eq!(flush_dual(&a, &a), Ok(()));
    }

    #[cfg(feature = "std")]
    #[test]
    fn info_agrees_with_facts() {
        let info = Info::get();
        let facts = facts();
        assert_eq!(info.facts(), facts);
        assert!(facts.status.is_ok() || facts.status == Err(Error::Probe));
        assert_eq!(info.cpus().len() as u32, info.raw().ncpus);
        assert!(!facts.platform.is_empty() && !facts.method.is_empty());
        for cpu in info.cpus() {
            // The process-wide line is the minimum over every CPU.
            assert!(facts.iline <= cpu.iline || cpu.iline == 0, "{cpu:?}");
            assert!(facts.dline <= cpu.dline || cpu.dline == 0, "{cpu:?}");
        }
    }
}

/// The README's example, compiled and run as a doc-test.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
