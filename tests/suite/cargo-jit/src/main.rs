fn main() {
    let got = cranelift_jit_on_the_rig::compile_and_call(300, 1000);
    println!("cranelift-jit: add_steps(1000) = {got}");
    std::process::exit(if got == 1300 { 0 } else { 1 });
}
