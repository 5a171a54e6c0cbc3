//! WGSL through the depth pre-scan and naga (`bake::shader::validate_wgsl`), as a `.wgsl`
//! asset is baked: the input's bytes pick tokens (prefix, binary and postfix operators,
//! brackets, calls, separators) that build one expression of any shape and depth, so runs
//! far past the pre-scan's bound are common. Whatever the pre-scan lets through must come
//! back from naga (an error or a module) on its stack, never overflow it; arbitrary UTF-8
//! text goes through the same call.
#![no_main]

use hearth::bake::shader::validate_wgsl;
use libfuzzer_sys::fuzz_target;

/// Tokens chosen by input bytes; `a` is a `vec4<f32>`, `p` a pointer to it, `b` a bool.
const TOKENS: [&str; 24] = [
    "-", "!", "~", "*", "&", "*&", "&*", "(", ")", "[0]", ".x", ".xyzw", " + ", " * ", " && ",
    " << ", " == ", "abs(", ", ", "a", "b", "p", "1.5", ")",
];

fuzz_target!(|data: &[u8]| {
    if let Some((&mode, rest)) = data.split_first() {
        if mode & 1 == 0 {
            if let Ok(text) = std::str::from_utf8(rest) {
                let _ = validate_wgsl("fuzz.wgsl", text);
            }
            return;
        }
        // Each input byte may stand for a run: its low bits pick the token, its high bits
        // a repeat count (1, 16, 256 or 4096), so deep runs need few bytes.
        let mut expression = String::new();
        for &byte in rest {
            let token = TOKENS[usize::from(byte) % TOKENS.len()];
            let repeat = 1usize << (4 * (byte >> 6));
            for _ in 0..repeat {
                expression.push_str(token);
            }
        }
        let text = format!(
            "fn f(p: ptr<function, vec4<f32>>) {{\n    var a = vec4<f32>();\n    var b = true;\n    \
             _ = {expression};\n}}\n"
        );
        let _ = validate_wgsl("fuzz.wgsl", &text);
    }
});
