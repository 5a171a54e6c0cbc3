//! Adobe/Resolve `.cube` 3D LUTs.

/// A parsed 3D LUT: `size`³ RGB entries, red fastest, then green, then blue.
#[derive(Debug, Clone, PartialEq)]
pub struct CubeLut {
    /// `TITLE`, if any.
    pub title: Option<String>,
    /// `LUT_3D_SIZE`.
    pub size: u32,
    /// `DOMAIN_MIN` (default 0 0 0).
    pub domain_min: [f32; 3],
    /// `DOMAIN_MAX` (default 1 1 1).
    pub domain_max: [f32; 3],
    /// The entries.
    pub rgb: Vec<[f32; 3]>,
}

/// Largest `LUT_3D_SIZE` accepted (the .cube spec's limit).
pub const MAX_SIZE: u32 = 256;

/// Parses a `.cube` file; errors name the line.
pub fn parse(text: &str) -> Result<CubeLut, String> {
    let mut lut = CubeLut {
        title: None,
        size: 0,
        domain_min: [0.0; 3],
        domain_max: [1.0; 3],
        rgb: Vec::new(),
    };
    let floats = |parts: &[&str], line: usize| -> Result<[f32; 3], String> {
        if parts.len() != 3 {
            return Err(format!(
                "line {line}: expected 3 numbers, found {}",
                parts.len()
            ));
        }
        let mut out = [0.0; 3];
        for (o, p) in out.iter_mut().zip(parts) {
            *o = p
                .parse::<f32>()
                .map_err(|_| format!("line {line}: `{p}` is not a number"))?;
            if !o.is_finite() {
                return Err(format!("line {line}: `{p}` is not finite"));
            }
        }
        Ok(out)
    };
    for (index, raw) in text.lines().enumerate() {
        let line = index + 1;
        let content = raw.split('#').next().unwrap_or("").trim();
        if content.is_empty() {
            continue;
        }
        let parts: Vec<&str> = content.split_whitespace().collect();
        match parts[0] {
            "TITLE" => {
                lut.title = Some(content["TITLE".len()..].trim().trim_matches('"').to_owned())
            }
            "LUT_3D_SIZE" => {
                let size = parts.get(1).and_then(|s| s.parse::<u32>().ok());
                match size {
                    Some(size) if (2..=MAX_SIZE).contains(&size) && parts.len() == 2 => {
                        lut.size = size
                    }
                    _ => return Err(format!("line {line}: LUT_3D_SIZE must be 2..={MAX_SIZE}")),
                }
            }
            "LUT_1D_SIZE" => {
                return Err(format!(
                    "line {line}: 1D LUTs are not supported (LUT_1D_SIZE)"
                ))
            }
            "DOMAIN_MIN" => lut.domain_min = floats(&parts[1..], line)?,
            "DOMAIN_MAX" => lut.domain_max = floats(&parts[1..], line)?,
            "LUT_3D_INPUT_RANGE" => {
                let range: Vec<f32> = parts[1..].iter().filter_map(|p| p.parse().ok()).collect();
                if range.len() != 2 || parts.len() != 3 {
                    return Err(format!("line {line}: LUT_3D_INPUT_RANGE needs two numbers"));
                }
                lut.domain_min = [range[0]; 3];
                lut.domain_max = [range[1]; 3];
            }
            word if word
                .starts_with(|c: char| c.is_ascii_digit() || c == '-' || c == '+' || c == '.') =>
            {
                if lut.size == 0 {
                    return Err(format!("line {line}: data before LUT_3D_SIZE"));
                }
                lut.rgb.push(floats(&parts, line)?);
            }
            word => return Err(format!("line {line}: unknown keyword `{word}`")),
        }
    }
    if lut.size == 0 {
        return Err("no LUT_3D_SIZE".into());
    }
    let expected = (lut.size as usize).pow(3);
    if lut.rgb.len() != expected {
        return Err(format!(
            "{} entries, but LUT_3D_SIZE {} needs {expected}",
            lut.rgb.len(),
            lut.size
        ));
    }
    if (0..3).any(|c| lut.domain_min[c] >= lut.domain_max[c]) {
        return Err("DOMAIN_MIN must be below DOMAIN_MAX".into());
    }
    Ok(lut)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_identity_and_rejects_malformed() {
        let mut text = String::from(
            "# comment\nTITLE \"id\"\nLUT_3D_SIZE 2\nDOMAIN_MIN 0 0 0\nDOMAIN_MAX 1 1 1\n",
        );
        for b in 0..2 {
            for g in 0..2 {
                for r in 0..2 {
                    text += &format!("{r} {g} {b}\n");
                }
            }
        }
        let lut = parse(&text).unwrap();
        assert_eq!(
            (lut.size, lut.title.as_deref(), lut.rgb[1]),
            (2, Some("id"), [1.0, 0.0, 0.0])
        );
        assert!(parse(&text.replace("1 1 1\n", ""))
            .unwrap_err()
            .contains("needs 8"));
        assert!(parse("LUT_3D_SIZE 2\n0 0 x\n")
            .unwrap_err()
            .contains("line 2"));
        assert!(parse("LUT_1D_SIZE 16\n").unwrap_err().contains("1D"));
        assert!(parse("LUT_3D_SIZE 1\n").is_err());
        assert!(parse("FOO 1\n").unwrap_err().contains("unknown keyword"));
        assert!(parse("").is_err());
    }
}
