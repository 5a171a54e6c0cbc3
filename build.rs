//! Records whether hearth itself is compiled without optimizations, so the baker can tell a
//! game's build script that its bakes run unoptimized (build-dependencies default to opt-level 0).
fn main() {
    println!("cargo::rustc-check-cfg=cfg(hearth_unoptimized)");
    println!("cargo::rerun-if-changed=build.rs");
    if std::env::var("OPT_LEVEL").as_deref() == Ok("0") {
        println!("cargo::rustc-cfg=hearth_unoptimized");
    }
}
