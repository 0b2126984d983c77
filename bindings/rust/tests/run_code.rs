//! Code written, flushed through the crate and run: in place, rewritten in
//! place, and through a second (W^X) mapping. Under the rig
//! (tests/rust/rust_test.py aarch64: Cargo's runner is jitflush-emu on the
//! Exynos 8890 with exec-map-sync none) a missing or short flush is a stale
//! fetch and the run fails with status 86.
#![cfg(all(
    target_os = "linux",
    any(target_arch = "aarch64", target_arch = "x86_64")
))]

use core::ffi::{c_int, c_long, c_void};

extern "C" {
    fn mmap(
        addr: *mut c_void,
        len: usize,
        prot: c_int,
        flags: c_int,
        fd: c_int,
        off: c_long,
    ) -> *mut c_void;
    fn munmap(addr: *mut c_void, len: usize) -> c_int;
    fn memfd_create(name: *const u8, flags: u32) -> c_int;
    fn ftruncate(fd: c_int, len: c_long) -> c_int;
    fn close(fd: c_int) -> c_int;
}
// The same values on x86_64 and aarch64 Linux (asm-generic/mman-common.h).
const PROT_READ: c_int = 1;
const PROT_WRITE: c_int = 2;
const PROT_EXEC: c_int = 4;
const MAP_SHARED: c_int = 1;
const MAP_PRIVATE: c_int = 2;
const MAP_ANONYMOUS: c_int = 0x20;
const PAGE: usize = 4096;

/// A function `fn() -> u32` returning `value`, padded so that the code
/// spans `at` bytes of lines before it (the return sits at offset `at`).
fn return_value(value: u16, at: usize) -> Vec<u8> {
    let mut code = Vec::new();
    if cfg!(target_arch = "aarch64") {
        while code.len() < at {
            code.extend_from_slice(&0xd503201fu32.to_le_bytes()); // nop
        }
        let movz = 0x52800000u32 | ((value as u32) << 5); // movz w0, #value
        code.extend_from_slice(&movz.to_le_bytes());
        code.extend_from_slice(&0xd65f03c0u32.to_le_bytes()); // ret
    } else {
        code.resize(at, 0x90); // nop
        code.push(0xb8); // mov eax, imm32
        code.extend_from_slice(&(value as u32).to_le_bytes());
        code.push(0xc3); // ret
    }
    code
}

fn map(len: usize, prot: c_int, flags: c_int, fd: c_int) -> *mut u8 {
    // SAFETY: a fresh mapping; checked for failure.
    let p = unsafe { mmap(core::ptr::null_mut(), len, prot, flags, fd, 0) };
    assert!(p as isize != -1, "mmap failed");
    p.cast()
}

fn call(code: *const u8) -> u32 {
    // SAFETY: code holds a function of this signature, flushed.
    let f: extern "C" fn() -> u32 = unsafe { core::mem::transmute(code) };
    f()
}

/// A fresh private page mapped readable, writable and executable: its
/// address (to unmap) and its bytes.
fn rwx_page() -> (*mut u8, &'static mut [u8]) {
    let p = map(
        PAGE,
        PROT_READ | PROT_WRITE | PROT_EXEC,
        MAP_PRIVATE | MAP_ANONYMOUS,
        -1,
    );
    // SAFETY: p is PAGE bytes, mapped readable and writable until the
    // caller unmaps it.
    (p, unsafe { core::slice::from_raw_parts_mut(p, PAGE) })
}

#[test]
fn code_rewritten_in_place_runs_after_each_flush() {
    let (p, page) = rwx_page();
    // Each round's return sits on a different 64-byte line of a 128-byte
    // block, where a stride latched on a big core skips lines.
    for (round, at) in [0usize, 64, 192, 448, 1000].into_iter().enumerate() {
        let value = 40 + round as u16;
        let code = return_value(value, at);
        page[..code.len()].copy_from_slice(&code);
        jitflush::flush(&page[..code.len()]);
        assert_eq!(call(p), value as u32, "round {round}");
    }
    // SAFETY: the mapping is no longer used.
    unsafe { munmap(p.cast(), PAGE) };
}

#[test]
fn code_written_through_rw_runs_through_rx() {
    // SAFETY: a NUL-terminated name.
    let fd = unsafe { memfd_create(b"jitflush-rs\0".as_ptr(), 0) };
    assert!(fd >= 0, "memfd_create failed");
    // SAFETY: fd is a fresh memfd.
    assert_eq!(unsafe { ftruncate(fd, PAGE as c_long) }, 0);
    let rw = map(PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd);
    let rx = map(PAGE, PROT_READ | PROT_EXEC, MAP_SHARED, fd);
    for (round, at) in [0usize, 128, 320].into_iter().enumerate() {
        let value = 7 + round as u16;
        let code = return_value(value, at);
        // SAFETY: rw is PAGE writable bytes; rx is the same page, readable.
        let (rw_s, rx_s) = unsafe {
            (
                core::slice::from_raw_parts_mut(rw, PAGE),
                core::slice::from_raw_parts(rx, PAGE),
            )
        };
        rw_s[..code.len()].copy_from_slice(&code);
        jitflush::flush_dual(&rw_s[..code.len()], &rx_s[..code.len()]).unwrap();
        assert_eq!(call(rx), value as u32, "round {round}");
    }
    // SAFETY: the mappings and the descriptor are no longer used.
    unsafe {
        munmap(rw.cast(), PAGE);
        munmap(rx.cast(), PAGE);
        close(fd);
    }
}

#[test]
fn code_flushed_for_all_threads_runs_on_another_thread() {
    let (p, page) = rwx_page();
    let code = return_value(99, 256);
    page[..code.len()].copy_from_slice(&code);
    match jitflush::flush_all_threads(&page[..code.len()]) {
        Ok(_) => {}
        // No membarrier (seccomp, an old kernel): the thread below starts
        // after the flush, and creating it synchronises it.
        Err(jitflush::Error::Unsupported) => {}
        Err(e) => panic!("{e}"),
    }
    let addr = p as usize;
    let got = std::thread::spawn(move || call(addr as *const u8))
        .join()
        .unwrap();
    assert_eq!(got, 99);
    // SAFETY: the mapping is no longer used.
    unsafe { munmap(p.cast(), PAGE) };
}
