//! Shader pipelines: SPIR-V files and assetc's `*.shader/` stage folders, checked structurally
//! ([`crate::format::spirv`]); WGSL files, validated with naga (and, with
//! `shader = { spirv = true }`, also translated to SPIR-V). Every output is a shader entry
//! (manifest kind 4).

use crate::bake::pipeline::{BakeContext, Claim, Output, Pipeline, PipelineError, Source};
use crate::format::hman::AssetKind;
use crate::format::spirv::{self, Stage};

/// `shader = { … }` in any layer of the manifest.
#[derive(Debug, Clone, Default, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ShaderSettings {
    /// WGSL only: also write `<name>.spv`, the module naga translates (every entry point).
    pub spirv: bool,
}

/// `*.spv`: one SPIR-V module, checked and stored as it is.
#[derive(Debug, Clone, Copy, Default)]
pub struct Spirv;

impl Pipeline for Spirv {
    type Settings = ShaderSettings;

    fn name(&self) -> &str {
        "spirv"
    }
    fn version(&self) -> u32 {
        1
    }
    fn claims(&self) -> Vec<Claim> {
        vec![Claim::file("*.spv")]
    }
    fn settings_table(&self) -> &str {
        "shader"
    }
    fn bake(
        &self,
        source: &Source<'_>,
        _: &ShaderSettings,
        cx: &mut BakeContext<'_>,
    ) -> Result<(), PipelineError> {
        spirv::check(source.bytes())?;
        cx.emit(Output::new(
            source.rel(),
            AssetKind::SHADER,
            source.bytes().to_vec(),
        ));
        Ok(())
    }
}

/// `*.shader/`: a folder of stage modules (`vertex.spv`, `fragment.spv`, `compute.spv`, …,
/// see [`Stage::from_file_stem`]), each checked, and its entry point checked to be that
/// stage. Outputs keep the folder's layout: `shaders/sprite.shader/vertex.spv`.
#[derive(Debug, Clone, Copy, Default)]
pub struct ShaderFolder;

impl Pipeline for ShaderFolder {
    type Settings = ShaderSettings;

    fn name(&self) -> &str {
        "shader-folder"
    }
    fn version(&self) -> u32 {
        1
    }
    fn claims(&self) -> Vec<Claim> {
        vec![Claim::folder("*.shader")]
    }
    fn settings_table(&self) -> &str {
        "shader"
    }
    fn bake(
        &self,
        source: &Source<'_>,
        _: &ShaderSettings,
        cx: &mut BakeContext<'_>,
    ) -> Result<(), PipelineError> {
        let mut stages = 0;
        for file in source.files() {
            let name = file.name();
            let Some(stem) = name.strip_suffix(".spv") else {
                cx.warn_about(&file.path, "not a SPIR-V stage (`<stage>.spv`): left out");
                continue;
            };
            let stage = Stage::from_file_stem(stem).ok_or_else(|| {
                format!(
                    "{name}: `{stem}` is not a stage name (vertex, fragment, compute, geometry, \
                     tess_control, tess_eval, task, mesh, or vert, frag, comp, geom, tesc, tese)"
                )
            })?;
            let info = spirv::check(&file.bytes)
                .map_err(|error| format!("{name} ({} stage): {error}", stage.name()))?;
            if !info.entry_points.iter().any(|e| e.stage == stage) {
                let found: Vec<&str> = info.entry_points.iter().map(|e| e.stage.name()).collect();
                return Err(format!(
                    "{name}: no {} entry point (the module's entry points are {})",
                    stage.name(),
                    found.join(", ")
                )
                .into());
            }
            cx.emit(Output::new(
                format!("{}/{name}", source.rel()),
                AssetKind::SHADER,
                file.bytes.clone(),
            ));
            stages += 1;
        }
        if stages == 0 {
            return Err("the folder holds no stage module (vertex.spv, fragment.spv, …)".into());
        }
        Ok(())
    }
}

/// `*.wgsl`: parsed and validated with naga, stored as it is; `spirv = true` adds the SPIR-V.
#[derive(Debug, Clone, Copy, Default)]
pub struct Wgsl;

impl Pipeline for Wgsl {
    type Settings = ShaderSettings;

    fn name(&self) -> &str {
        "wgsl"
    }
    fn version(&self) -> u32 {
        1
    }
    fn claims(&self) -> Vec<Claim> {
        vec![Claim::file("*.wgsl")]
    }
    fn settings_table(&self) -> &str {
        "shader"
    }
    fn bake(
        &self,
        source: &Source<'_>,
        settings: &ShaderSettings,
        cx: &mut BakeContext<'_>,
    ) -> Result<(), PipelineError> {
        let text = std::str::from_utf8(source.bytes())
            .map_err(|e| format!("{}: not UTF-8 text: {e}", source.rel()))?;
        let spirv_words = compile_wgsl(source.rel(), text, settings.spirv)?;
        cx.emit(Output::new(
            source.rel(),
            AssetKind::SHADER,
            source.bytes().to_vec(),
        ));
        if let Some(words) = spirv_words {
            let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
            cx.emit(Output::new(
                format!("{}.spv", source.stem()),
                AssetKind::SHADER,
                bytes,
            ));
        }
        Ok(())
    }
}

/// The stack naga's WGSL parser, validator and SPIR-V writer run on. They recurse over the
/// expression tree; [`check_wgsl_depth`] bounds its depth first, and this stack holds well
/// over that bound even in debug builds, whatever stack the caller's thread has.
const NAGA_STACK_BYTES: usize = 64 << 20;

/// The deepest bracket nesting a WGSL file may have: the WGSL spec's limit on brace-enclosed
/// statements (127), and under naga's parser recursion limit (200), which it reports only as
/// an "internal error" at 1:1.
pub const MAX_WGSL_NESTING: usize = 127;

/// The deepest a WGSL expression may be, estimated by [`check_wgsl_depth`] (bracket levels
/// plus operators chained at each open level): real shaders stay far below it, and naga
/// handles it on `NAGA_STACK_BYTES`.
pub const MAX_WGSL_EXPRESSION_DEPTH: usize = 1024;

/// Validates WGSL and, with `spirv`, translates it: on a thread of its own with a known
/// stack, after [`check_wgsl_depth`], so no input can overflow the stack and abort.
fn compile_wgsl(file: &str, text: &str, spirv: bool) -> Result<Option<Vec<u32>>, String> {
    check_wgsl_depth(file, text)?;
    on_naga_stack(|| {
        let (module, info) = parse_and_validate(file, text)?;
        if !spirv {
            return Ok(None);
        }
        naga::back::spv::write_vec(&module, &info, &naga::back::spv::Options::default(), None)
            .map(Some)
            .map_err(|e| format!("{file}: SPIR-V translation failed: {e}"))
    })
}

/// Runs `work` on a scoped thread with [`NAGA_STACK_BYTES`] of stack; a panic in it is resumed
/// on the caller's thread (the baker turns it into an error naming the file).
fn on_naga_stack<T: Send>(work: impl FnOnce() -> Result<T, String> + Send) -> Result<T, String> {
    std::thread::scope(|scope| {
        let thread = std::thread::Builder::new()
            .name("hearth-naga".into())
            .stack_size(NAGA_STACK_BYTES)
            .spawn_scoped(scope, work)
            .map_err(|e| format!("could not start the shader compiler's thread: {e}"))?;
        thread
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    })
}

/// WGSL's operator tokens of more than one character, longest first, as naga's lexer takes
/// them: each is one operator. Every other operator character is a token of its own, so a run
/// like `!!!` or `*&*&` is as many operators as characters, each one a level of naga's
/// recursion (a prefix operator wraps the expression after it).
const MULTI_CHAR_OPERATORS: [&[u8]; 21] = [
    b"<<=", b">>=", b"&&", b"||", b"<=", b">=", b"==", b"!=", b"<<", b">>", b"->", b"+=", b"-=",
    b"*=", b"/=", b"%=", b"&=", b"|=", b"^=", b"++", b"--",
];

/// The length of the operator token at the start of `rest` (which starts with an operator
/// character).
fn operator_len(rest: &[u8]) -> usize {
    MULTI_CHAR_OPERATORS
        .iter()
        .find(|token| rest.starts_with(token))
        .map_or(1, |token| token.len())
}

/// Bounds what naga would recurse over, in one linear pass over the text (comments skipped):
/// bracket nesting (`(`, `[`, `{`) to [`MAX_WGSL_NESTING`], and the estimated depth of an
/// expression (open brackets plus the operators chained at each open level since its last
/// `,` or `;`) to [`MAX_WGSL_EXPRESSION_DEPTH`]. An operator is a token as naga lexes it:
/// prefix (`-`, `!`, `~`, `*`, `&`), binary, and the postfix selectors (`[…]` and
/// `.member`), each one level. Errors read `file:line:column: message`.
pub fn check_wgsl_depth(file: &str, text: &str) -> Result<(), String> {
    let bytes = text.as_bytes();
    // Operators chained at each open bracket level, and their sum.
    let mut levels: Vec<usize> = vec![0];
    let mut chained = 0usize;
    let (mut line, mut line_start) = (1usize, 0usize);
    let at = |line: usize, line_start: usize, i: usize| {
        let column = text.get(line_start..i).map_or(0, |s| s.chars().count()) + 1;
        format!("{file}:{line}:{column}")
    };
    let mut i = 0;
    while i < bytes.len() {
        let byte = bytes[i];
        let mut token_len = 1;
        let mut operator = false;
        match byte {
            b'\n' => (line, line_start) = (line + 1, i + 1),
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                // Block comments nest in WGSL.
                let mut open = 0usize;
                while i < bytes.len() {
                    match (bytes[i], bytes.get(i + 1)) {
                        (b'/', Some(b'*')) => (open, i) = (open + 1, i + 2),
                        (b'*', Some(b'/')) => (open, i) = (open - 1, i + 2),
                        (b'\n', _) => (line, line_start, i) = (line + 1, i + 1, i + 1),
                        _ => i += 1,
                    }
                    if open == 0 {
                        break;
                    }
                }
                continue;
            }
            b'(' | b'[' | b'{' => {
                if levels.len() > MAX_WGSL_NESTING {
                    return Err(format!(
                        "{}: brackets nested deeper than {MAX_WGSL_NESTING} levels",
                        at(line, line_start, i)
                    ));
                }
                // An index `a[i]` is a postfix selector: a level around its base, counted
                // at the base's level.
                if byte == b'[' {
                    *levels.last_mut().expect("the outermost level stays") += 1;
                    chained += 1;
                }
                levels.push(0);
            }
            // Unbalanced closers are naga's to report.
            b')' | b']' | b'}' if levels.len() > 1 => {
                chained -= levels.pop().unwrap_or(0);
            }
            b',' | b';' => {
                let level = levels.last_mut().expect("the outermost level stays");
                chained -= *level;
                *level = 0;
            }
            // `.member` (not the point of a number: `1.5`).
            b'.' => {
                operator = bytes
                    .get(i + 1)
                    .is_some_and(|b| b.is_ascii_alphabetic() || *b == b'_')
            }
            b'+' | b'-' | b'*' | b'/' | b'%' | b'&' | b'|' | b'^' | b'<' | b'>' | b'=' | b'!'
            | b'~' => {
                operator = true;
                token_len = operator_len(&bytes[i..]);
            }
            _ => {}
        }
        if operator {
            *levels.last_mut().expect("the outermost level stays") += 1;
            chained += 1;
        }
        if levels.len() + chained > MAX_WGSL_EXPRESSION_DEPTH {
            return Err(format!(
                "{}: an expression nested or chained deeper than {MAX_WGSL_EXPRESSION_DEPTH} \
                 levels (split it with `let` bindings)",
                at(line, line_start, i)
            ));
        }
        i += token_len;
    }
    Ok(())
}

/// Parses and validates WGSL; errors read `file:line:column: message`. Checked with
/// [`check_wgsl_depth`] first, and run on a stack of known size.
pub fn validate_wgsl(
    file: &str,
    text: &str,
) -> Result<(naga::Module, naga::valid::ModuleInfo), String> {
    check_wgsl_depth(file, text)?;
    on_naga_stack(|| parse_and_validate(file, text))
}

/// naga's parse and validation, on the caller's stack.
fn parse_and_validate(
    file: &str,
    text: &str,
) -> Result<(naga::Module, naga::valid::ModuleInfo), String> {
    let module = naga::front::wgsl::parse_str(text).map_err(|error| {
        let at = error
            .location(text)
            .map(|l| format!("{}:{}", l.line_number, l.line_position))
            .unwrap_or_else(|| "1:1".to_owned());
        format!("{file}:{at}: {}", error.message())
    })?;
    let info = naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::all(),
    )
    .validate(&module)
    .map_err(|error| {
        let at = error
            .location(text)
            .map(|l| format!("{}:{}", l.line_number, l.line_position))
            .unwrap_or_else(|| "1:1".to_owned());
        let mut message = error.as_inner().to_string();
        let mut cause = std::error::Error::source(error.as_inner());
        while let Some(inner) = cause {
            message.push_str(": ");
            message.push_str(&inner.to_string());
            cause = inner.source();
        }
        format!("{file}:{at}: {message}")
    })?;
    Ok((module, info))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn function(expression: &str) -> String {
        format!("fn f(a: f32) -> f32 {{\n    return {expression};\n}}\n")
    }

    /// Every prefix operator naga accepts (`-`, `!`, `~`, `*`, `&`, each a level of its
    /// recursion) and the postfix selectors (`[i]`, `.member`), in runs: at the bound they
    /// reach naga on its stack and come back (an error or not, never an overflow), and past it
    /// the pre-scan refuses them, whatever naga's lexer makes of the characters.
    #[test]
    fn long_runs_of_prefix_and_postfix_operators_are_bounded() {
        let statement = |expression: String| {
            format!("fn f() {{\n    var a = array<vec4<f32>, 2>();\n    var b: bool = {expression};\n}}\n")
        };
        // (run, operators in one repetition): spaced where two characters would lex as one
        // token (`--`, `&&`), so that each character is an operator.
        let prefixes = [
            ("- ", 1),
            ("!", 1),
            ("~", 1),
            ("*", 1),
            ("& ", 1),
            ("*&", 2),
            ("-!~", 3),
        ];
        let postfixes = [("[0]", 1), (".x", 1)];
        let within = MAX_WGSL_EXPRESSION_DEPTH - 16;
        for (run, per) in prefixes {
            let at_bound = statement(format!("{}true", run.repeat(within / per)));
            let _ = compile_wgsl(run, &at_bound, true);
            let past = statement(format!(
                "{}true",
                run.repeat(MAX_WGSL_EXPRESSION_DEPTH / per + 1)
            ));
            let error = compile_wgsl(run, &past, false).unwrap_err();
            assert!(error.contains("deeper"), "{run}: {error}");
        }
        for (run, per) in postfixes {
            let at_bound = statement(format!("a{}", run.repeat(within / per)));
            let _ = compile_wgsl(run, &at_bound, true);
            let past = statement(format!(
                "a{}",
                run.repeat(MAX_WGSL_EXPRESSION_DEPTH / per + 1)
            ));
            let error = compile_wgsl(run, &past, false).unwrap_err();
            assert!(error.contains("deeper"), "{run}: {error}");
        }
        // The runs the adversarial pass found (each aborted the process), and runs of the
        // characters that lex as two-character tokens.
        for (run, count) in [
            ("!", 150_000),
            ("~", 200_000),
            ("*&", 100_000),
            ("-", 100_000),
            ("&", 100_000),
        ] {
            let text = statement(format!("{}true", run.repeat(count)));
            let error = compile_wgsl("runs.wgsl", &text, false).unwrap_err();
            assert!(
                error.starts_with("runs.wgsl:3:") && error.contains("deeper"),
                "{run}: {error}"
            );
        }
        // Numbers' points are not member selectors.
        let floats = statement(format!(
            "0.5{} > 0.0",
            " + 0.5".repeat(MAX_WGSL_EXPRESSION_DEPTH / 2)
        ));
        check_wgsl_depth("floats.wgsl", &floats).unwrap();
    }

    /// The deepest shapes the pre-scan lets through compile on naga's stack (debug builds
    /// included), and one step further is an error naming the place.
    #[test]
    fn the_depth_bound_fits_nagas_stack() {
        let ops = MAX_WGSL_EXPRESSION_DEPTH - 8;
        let sum = function(&format!("a{}", " + a".repeat(ops)));
        let nesting = MAX_WGSL_NESTING - 2;
        let parens = function(&format!("{}a{}", "(".repeat(nesting), ")".repeat(nesting)));
        let calls = function(&format!(
            "{}a{}",
            "abs(".repeat(nesting),
            ")".repeat(nesting)
        ));
        // Brackets and chained operators together, at the expression bound.
        let levels = MAX_WGSL_NESTING - 7;
        let per_level = (MAX_WGSL_EXPRESSION_DEPTH - 8 - levels) / levels - 1;
        let mixed = function(&format!(
            "{}a{}",
            format!("a{} + (", " * a".repeat(per_level)).repeat(levels),
            ")".repeat(levels)
        ));
        for (name, text) in [
            ("sum", &sum),
            ("parens", &parens),
            ("calls", &calls),
            ("mixed", &mixed),
        ] {
            compile_wgsl(name, text, true).unwrap_or_else(|e| panic!("{name}: {e}"));
        }
        let too_long = function(&format!("a{}", " + a".repeat(MAX_WGSL_EXPRESSION_DEPTH)));
        let error = compile_wgsl("long.wgsl", &too_long, false).unwrap_err();
        assert!(
            error.starts_with("long.wgsl:2:") && error.contains("deeper"),
            "{error}"
        );
        let too_deep = function(&format!("{}a{}", "(".repeat(300), ")".repeat(300)));
        let error = compile_wgsl("deep.wgsl", &too_deep, false).unwrap_err();
        assert!(
            error.starts_with("deep.wgsl:2:") && error.contains("nested"),
            "{error}"
        );
        // Comments do not count.
        let commented = function(&format!(
            "a /* {} */ // {}\n",
            "((".repeat(400),
            "+".repeat(2000)
        ));
        compile_wgsl("commented.wgsl", &commented, false).unwrap();
    }
}
