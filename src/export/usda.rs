//! The text form of a [`Layer`] (`#usda 1.0`), as `usdcat` would print it.
//!
//! Floats are written with Rust's shortest round-trip formatting, so a `float` value reads
//! back bit for bit; strings and asset paths are escaped.

use crate::export::layer::{Attribute, Layer, Prim, Property, Specifier, Value};
use std::fmt::Write;

/// `layer` as USDA text.
pub fn write(layer: &Layer) -> String {
    let mut out = String::from("#usda 1.0\n");
    if !layer.metadata.is_empty() {
        out.push_str("(\n");
        for (key, value) in &layer.metadata {
            let key = if key == "documentation" { "doc" } else { key };
            let _ = writeln!(out, "    {key} = {}", value_text(value));
        }
        out.push_str(")\n");
    }
    for prim in &layer.prims {
        out.push('\n');
        write_prim(&mut out, prim, 0);
    }
    out
}

fn indent(out: &mut String, depth: usize) {
    for _ in 0..depth {
        out.push_str("    ");
    }
}

fn write_prim(out: &mut String, prim: &Prim, depth: usize) {
    indent(out, depth);
    out.push_str(match prim.specifier {
        Specifier::Def => "def ",
        Specifier::Over => "over ",
        Specifier::Class => "class ",
    });
    if !prim.type_name.is_empty() {
        out.push_str(&prim.type_name);
        out.push(' ');
    }
    out.push_str(&quoted(&prim.name));
    if !prim.metadata.is_empty() || !prim.api_schemas.is_empty() || !prim.references.is_empty() {
        out.push_str(" (\n");
        if !prim.api_schemas.is_empty() {
            indent(out, depth + 1);
            let list: Vec<String> = prim.api_schemas.iter().map(|s| quoted(s)).collect();
            let _ = writeln!(out, "prepend apiSchemas = [{}]", list.join(", "));
        }
        if !prim.references.is_empty() {
            indent(out, depth + 1);
            let list: Vec<String> = prim
                .references
                .iter()
                .map(|(asset, path)| {
                    format!("{}<{path}>", value_text(&Value::Asset(asset.clone())))
                })
                .collect();
            let _ = writeln!(out, "prepend references = [{}]", list.join(", "));
        }
        for (key, value) in &prim.metadata {
            indent(out, depth + 1);
            let _ = writeln!(out, "{key} = {}", value_text(value));
        }
        indent(out, depth);
        out.push(')');
    }
    out.push('\n');
    indent(out, depth);
    out.push_str("{\n");
    for property in &prim.properties {
        match property {
            Property::Attribute(a) => write_attribute(out, a, depth + 1),
            Property::Relationship(r) => {
                indent(out, depth + 1);
                let _ = writeln!(out, "rel {} = {}", r.name, path_list(&r.targets));
            }
        }
    }
    for (i, child) in prim.children.iter().enumerate() {
        if i > 0 || !prim.properties.is_empty() {
            out.push('\n');
        }
        write_prim(out, child, depth + 1);
    }
    indent(out, depth);
    out.push_str("}\n");
}

fn write_attribute(out: &mut String, a: &Attribute, depth: usize) {
    let uniform = if a.uniform { "uniform " } else { "" };
    let head = format!("{uniform}{} {}", a.type_name, a.name);
    if let Some(value) = &a.default {
        indent(out, depth);
        let _ = write!(out, "{head} = {}", value_text(value));
        if !a.metadata.is_empty() {
            out.push_str(" (\n");
            for (key, value) in &a.metadata {
                indent(out, depth + 1);
                let _ = writeln!(out, "{key} = {}", value_text(value));
            }
            indent(out, depth);
            out.push(')');
        }
        out.push('\n');
    } else if a.samples.is_empty() && a.connections.is_empty() {
        indent(out, depth);
        let _ = writeln!(out, "{head}");
    }
    if !a.samples.is_empty() {
        indent(out, depth);
        let _ = writeln!(out, "{head}.timeSamples = {{");
        for (time, value) in &a.samples {
            indent(out, depth + 1);
            let _ = writeln!(out, "{}: {},", double(*time), value_text(value));
        }
        indent(out, depth);
        out.push_str("}\n");
    }
    if !a.connections.is_empty() {
        indent(out, depth);
        let _ = writeln!(out, "{head}.connect = {}", path_list(&a.connections));
    }
}

/// One path `</a/b>` or a list of them.
fn path_list(paths: &[String]) -> String {
    match paths {
        [one] => format!("<{one}>"),
        _ => {
            let list: Vec<String> = paths.iter().map(|p| format!("<{p}>")).collect();
            format!("[{}]", list.join(", "))
        }
    }
}

/// A string literal, escaped.
fn quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// `f32` with the fewest digits that read back as the same float (`inf`/`nan` as USD
/// spells them).
fn float(v: f32) -> String {
    // Very large or small magnitudes in exponent form: USDA reads a literal without `.` or
    // `e` as an integer, and the plain form of 3e38 is 39 digits.
    let a = v.abs();
    if v.is_finite() && a != 0.0 && !(1e-5..1e15).contains(&a) {
        format!("{v:e}")
    } else if v.is_finite() {
        format!("{v}")
    } else if v.is_nan() {
        "nan".into()
    } else if v > 0.0 {
        "inf".into()
    } else {
        "-inf".into()
    }
}

fn double(v: f64) -> String {
    let a = v.abs();
    if v.is_finite() && a != 0.0 && !(1e-5..1e15).contains(&a) {
        format!("{v:e}")
    } else if v.is_finite() {
        format!("{v}")
    } else {
        float(v as f32)
    }
}

fn tuple<T: Copy>(values: &[T], f: fn(T) -> String) -> String {
    let parts: Vec<String> = values.iter().map(|&v| f(v)).collect();
    format!("({})", parts.join(", "))
}

/// A quaternion as USDA writes it: the real part first.
fn quat(q: &[f32; 4]) -> String {
    tuple(&[q[3], q[0], q[1], q[2]], float)
}

/// A 4x4 matrix as four row tuples.
fn matrix(m: &[f64; 16]) -> String {
    let rows: Vec<String> = m.chunks_exact(4).map(|r| tuple(r, double)).collect();
    format!("( {} )", rows.join(", "))
}

fn list<T>(items: &[T], f: impl Fn(&T) -> String) -> String {
    let parts: Vec<String> = items.iter().map(f).collect();
    format!("[{}]", parts.join(", "))
}

/// A value's literal.
fn value_text(value: &Value) -> String {
    match value {
        Value::Bool(b) => (if *b { "1" } else { "0" }).into(),
        Value::Int(i) => i.to_string(),
        Value::Float(f) => float(*f),
        Value::Double(d) => double(*d),
        Value::Token(s) | Value::String(s) => quoted(s),
        Value::Asset(a) => format!("@{}@", a.replace('@', "\\@")),
        Value::Float2(v) => tuple(v, float),
        Value::Float3(v) => tuple(v, float),
        Value::Float4(v) => tuple(v, float),
        Value::Double3(v) => tuple(v, double),
        Value::Quatf(q) => quat(q),
        Value::Matrix4d(m) => matrix(m),
        Value::IntArray(a) => list(a, i32::to_string),
        Value::FloatArray(a) => list(a, |&v| float(v)),
        Value::Float2Array(a) => list(a, |v| tuple(v, float)),
        Value::Float3Array(a) => list(a, |v| tuple(v, float)),
        Value::QuatfArray(a) => list(a, quat),
        Value::Half3Array(a) => list(a, |v| tuple(v, float)),
        Value::Matrix4dArray(a) => list(a, matrix),
        Value::TokenArray(a) => list(a, |s| quoted(s)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_read_back() {
        assert_eq!(float(0.1), "0.1");
        assert_eq!(float(3.0e38), "3e38");
        assert_eq!(float(-1.5e-7), "-1.5e-7");
        assert_eq!(double(24.0), "24");
        assert_eq!(quat(&[0.1, 0.2, 0.3, 0.9]), "(0.9, 0.1, 0.2, 0.3)");
        assert_eq!(quoted("a\"b\\"), "\"a\\\"b\\\\\"");
        let layer = Layer {
            metadata: vec![("upAxis".into(), Value::Token("Y".into()))],
            prims: vec![Prim::def("Root", "Xform")],
        };
        assert_eq!(
            write(&layer),
            "#usda 1.0\n(\n    upAxis = \"Y\"\n)\n\ndef Xform \"Root\"\n{\n}\n"
        );
    }
}
