//! cranelift-jit's own program (tests/suite/cargo-jit) with its publish step
//! changed: a memory provider that hands out cranelift-jit's default
//! memory (`SystemMemoryProvider`) and, when the module is finalised,
//! flushes every block of fresh code through jitflush before cranelift-jit
//! makes it executable (its own flush, mprotect and membarrier then run
//! unchanged).
//!
//! Why: cranelift-jit 0.135.8's flush (wasmtime-internal-jit-icache-coherence
//! 48.0.8, `src/libc.rs`, `aarch64_flush_icache`) issues `ic ivau` every 64
//! bytes and no `dc cvau`, so on a core without CTR_EL0.IDC (the Exynos
//! 8890's) the code it wrote is never cleaned to the point of unification;
//! Linux's first-exec-map sync covers fresh pages, nothing else does.

use std::io;

use cranelift_jit::{BranchProtection, JITMemoryKind, JITMemoryProvider, SystemMemoryProvider};
use cranelift_module::ModuleResult;

/// cranelift-jit's default memory, with jitflush's flush at publication.
pub struct FlushedMemory {
    inner: SystemMemoryProvider,
    /// Executable blocks allocated since the last finalisation (address,
    /// length): the code written since then.
    fresh: Vec<(usize, usize)>,
}

impl FlushedMemory {
    pub fn new() -> Self {
        FlushedMemory {
            inner: SystemMemoryProvider::new(),
            fresh: Vec::new(),
        }
    }
}

impl Default for FlushedMemory {
    fn default() -> Self {
        Self::new()
    }
}

impl JITMemoryProvider for FlushedMemory {
    fn allocate(&mut self, size: usize, align: u64, kind: JITMemoryKind) -> io::Result<*mut u8> {
        let code = matches!(kind, JITMemoryKind::Executable);
        let p = self.inner.allocate(size, align, kind)?;
        if code {
            self.fresh.push((p as usize, size));
        }
        Ok(p)
    }

    unsafe fn free_memory(&mut self) {
        self.fresh.clear();
        // SAFETY: the caller's promise is passed on.
        unsafe { self.inner.free_memory() }
    }

    fn finalize(&mut self, branch_protection: BranchProtection) -> ModuleResult<()> {
        for (p, len) in self.fresh.drain(..) {
            // SAFETY: the block is mapped (cranelift-jit allocated it and
            // has just written the code into it).
            unsafe { jitflush::flush_range(p as *const u8, (p + len) as *const u8) };
        }
        self.inner.finalize(branch_protection)
    }
}

/// `cranelift_jit_on_the_rig::compile_and_call`, published through jitflush.
pub fn compile_and_call(steps: u32, x: i64) -> i64 {
    cranelift_jit_on_the_rig::compile_and_call_on(
        |builder| {
            builder.memory_provider(Box::new(FlushedMemory::new()));
        },
        steps,
        x,
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn jit_code_runs_as_compiled() {
        cranelift_jit_on_the_rig::check_rounds(super::compile_and_call);
    }
}
