//! JIT-compiles and runs code with Cranelift's JIT (cranelift-jit), the way
//! Wasmtime and other Rust JITs do: each round compiles a new function, made
//! executable and flushed by cranelift-jit itself, and calls it.
//! `compile_and_call_on` lets a caller change the JIT's builder first:
//! tests/suite/cargo-jit-jitflush gives it a memory provider whose publish
//! step flushes through the jitflush crate.

use cranelift_codegen::ir::{AbiParam, InstBuilder, types};
use cranelift_codegen::settings::{self, Configurable};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::{Linkage, Module, default_libcall_names};

/// Compiles `fn(x: i64) -> i64` that adds 1 to x `steps` times (one
/// instruction each: without optimisation, a body of `steps` words spread
/// over many cache lines), calls it with `x` and returns the result.
pub fn compile_and_call(steps: u32, x: i64) -> i64 {
    compile_and_call_on(|_| {}, steps, x)
}

/// `compile_and_call` with `configure` applied to the JIT's builder before
/// the module is made (for example `JITBuilder::memory_provider`).
pub fn compile_and_call_on(configure: impl FnOnce(&mut JITBuilder), steps: u32, x: i64) -> i64 {
    let mut flags = settings::builder();
    flags.set("use_colocated_libcalls", "false").unwrap();
    flags.set("is_pic", "false").unwrap();
    flags.set("opt_level", "none").unwrap();
    let isa = cranelift_native::builder()
        .expect("this host is supported by Cranelift")
        .finish(settings::Flags::new(flags))
        .expect("a Cranelift ISA");
    let mut builder = JITBuilder::with_isa(isa, default_libcall_names());
    configure(&mut builder);
    let mut module = JITModule::new(builder);

    let mut ctx = module.make_context();
    ctx.func.signature.params.push(AbiParam::new(types::I64));
    ctx.func.signature.returns.push(AbiParam::new(types::I64));
    let mut fctx = FunctionBuilderContext::new();
    let frontend_config = module.isa().frontend_config();
    {
        let mut b = FunctionBuilder::new(&mut ctx.func, &mut fctx);
        let block = b.create_block();
        b.append_block_params_for_function_params(block);
        b.switch_to_block(block);
        b.seal_block(block);
        let mut v = b.block_params(block)[0];
        for _ in 0..steps {
            v = b.ins().iadd_imm_s(v, 1);
        }
        b.ins().return_(&[v]);
        b.finalize(frontend_config);
    }
    let id = module
        .declare_function("add_steps", Linkage::Export, &ctx.func.signature)
        .unwrap();
    module.define_function(id, &mut ctx).unwrap();
    module.clear_context(&mut ctx);
    // Makes the code executable and flushes it (cranelift-jit's own path).
    module.finalize_definitions().unwrap();
    let code = module.get_finalized_function(id);
    // SAFETY: the function was compiled with exactly this signature.
    let f: extern "C" fn(i64) -> i64 = unsafe { std::mem::transmute(code) };
    let result = f(x);
    // SAFETY: nothing refers to the module's code any more.
    unsafe { module.free_memory() };
    result
}

/// The test's rounds, each compiling a longer function with
/// `compile_and_call` and checking its result (tests/suite/cargo-jit-jitflush
/// runs the same rounds).
pub fn check_rounds(compile_and_call: impl Fn(u32, i64) -> i64) {
    for round in 0..8u32 {
        let steps = 200 + 40 * round;
        assert_eq!(compile_and_call(steps, 1000), 1000 + steps as i64);
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn jit_code_runs_as_compiled() {
        super::check_rounds(super::compile_and_call);
    }
}
