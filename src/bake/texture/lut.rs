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

/// Grid size used when a 1D table (alone, or as a Resolve shaper) is folded into a 3D one.
pub const FOLDED_SIZE: u32 = 33;

/// One table of a `.cube` file while parsing.
#[derive(Debug, Clone)]
struct Table {
    size: u32,
    min: [f32; 3],
    max: [f32; 3],
    rgb: Vec<[f32; 3]>,
}

impl Table {
    fn new(size: u32) -> Self {
        Self {
            size,
            min: [0.0; 3],
            max: [1.0; 3],
            rgb: Vec::new(),
        }
    }

    /// Where `v` falls on axis `c`, in grid units, clamped to the table.
    fn grid(&self, c: usize, v: f32) -> f32 {
        let t = (v - self.min[c]) / (self.max[c] - self.min[c]);
        t.clamp(0.0, 1.0) * (self.size - 1) as f32
    }

    /// 1D lookup with linear interpolation, per channel.
    fn sample_1d(&self, rgb: [f32; 3]) -> [f32; 3] {
        std::array::from_fn(|c| {
            let g = self.grid(c, rgb[c]);
            let (i, f) = (g.floor() as usize, g.fract());
            let j = (i + 1).min(self.size as usize - 1);
            self.rgb[i][c] * (1.0 - f) + self.rgb[j][c] * f
        })
    }

    /// 3D lookup with trilinear interpolation (red fastest, then green, then blue).
    fn sample_3d(&self, rgb: [f32; 3]) -> [f32; 3] {
        let n = self.size as usize;
        let g: [f32; 3] = std::array::from_fn(|c| self.grid(c, rgb[c]));
        let lo: [usize; 3] = g.map(|v| v.floor() as usize);
        let hi: [usize; 3] = lo.map(|v| (v + 1).min(n - 1));
        let f: [f32; 3] = std::array::from_fn(|c| g[c] - lo[c] as f32);
        let mut out = [0.0f32; 3];
        for corner in 0..8 {
            let pick = |axis: usize| {
                if corner >> axis & 1 == 1 {
                    (hi[axis], f[axis])
                } else {
                    (lo[axis], 1.0 - f[axis])
                }
            };
            let ((r, wr), (gg, wg), (b, wb)) = (pick(0), pick(1), pick(2));
            let entry = self.rgb[r + gg * n + b * n * n];
            for c in 0..3 {
                out[c] += entry[c] * wr * wg * wb;
            }
        }
        out
    }
}

/// Parses a `.cube` file (Adobe/Iridas and Resolve flavours); errors name the line.
///
/// A 3D table is kept as it is. A 1D table alone, or a Resolve 1D shaper before a 3D table,
/// is folded into a 3D table of [`FOLDED_SIZE`]³ over the 1D table's input range (each grid
/// point runs through the shaper, then the 3D table with trilinear interpolation), since the
/// runtime samples one 3D texture.
pub fn parse(text: &str) -> Result<CubeLut, String> {
    let mut title = None;
    let (mut one_d, mut three_d): (Option<Table>, Option<Table>) = (None, None);
    let mut domain: Option<([f32; 3], [f32; 3])> = None;
    let (mut range_1d, mut range_3d) = (None, None);
    for (index, raw) in text.lines().enumerate() {
        let line = index + 1;
        let content = raw.split('#').next().unwrap_or("").trim();
        if content.is_empty() {
            continue;
        }
        let parts: Vec<&str> = content.split_whitespace().collect();
        match parts[0] {
            "TITLE" => title = Some(content["TITLE".len()..].trim().trim_matches('"').to_owned()),
            "LUT_3D_SIZE" => three_d = Some(Table::new(size(&parts, line, MAX_SIZE)?)),
            "LUT_1D_SIZE" => one_d = Some(Table::new(size(&parts, line, 65536)?)),
            "DOMAIN_MIN" => {
                domain = Some((floats(&parts[1..], line)?, domain.map_or([1.0; 3], |d| d.1)))
            }
            "DOMAIN_MAX" => {
                domain = Some((domain.map_or([0.0; 3], |d| d.0), floats(&parts[1..], line)?))
            }
            "LUT_1D_INPUT_RANGE" => range_1d = Some(range(&parts, line)?),
            "LUT_3D_INPUT_RANGE" => range_3d = Some(range(&parts, line)?),
            word if word
                .starts_with(|c: char| c.is_ascii_digit() || c == '-' || c == '+' || c == '.') =>
            {
                let rgb = floats(&parts, line)?;
                // Resolve writes the 1D shaper's rows first, then the 3D table's.
                match (&mut one_d, &mut three_d) {
                    (Some(t), _) if t.rgb.len() < t.size as usize => t.rgb.push(rgb),
                    (_, Some(t)) if t.rgb.len() < (t.size as usize).pow(3) => t.rgb.push(rgb),
                    (None, None) => {
                        return Err(format!(
                            "line {line}: data before LUT_3D_SIZE or LUT_1D_SIZE"
                        ))
                    }
                    _ => return Err(format!("line {line}: more rows than the declared sizes")),
                }
            }
            word => return Err(format!("line {line}: unknown keyword `{word}`")),
        }
    }
    // DOMAIN_MIN/MAX (Adobe) describe the file's table, the 3D one when there is one. Input
    // ranges (Resolve) go to their table; some writers put LUT_1D_INPUT_RANGE in files with a
    // 3D table only, where it can only mean that table.
    let has_3d = three_d.is_some();
    apply_range(domain, if has_3d { &mut three_d } else { &mut one_d });
    apply_range(
        range_1d,
        if one_d.is_some() {
            &mut one_d
        } else {
            &mut three_d
        },
    );
    apply_range(range_3d, if has_3d { &mut three_d } else { &mut one_d });
    check_table("LUT_1D_SIZE", one_d.as_ref(), |t| t.size as usize)?;
    check_table("LUT_3D_SIZE", three_d.as_ref(), |t| {
        (t.size as usize).pow(3)
    })?;
    let table = match (one_d, three_d) {
        (None, None) => return Err("no LUT_3D_SIZE or LUT_1D_SIZE".into()),
        (None, Some(t3)) => t3,
        (Some(t1), t3) => fold(&t1, t3.as_ref()),
    };
    Ok(CubeLut {
        title,
        size: table.size,
        domain_min: table.min,
        domain_max: table.max,
        rgb: table.rgb,
    })
}

/// Three finite numbers within the half-float range (entries and domains are stored as half
/// floats: larger magnitudes would become infinite in the RGBA16F texture).
fn floats(parts: &[&str], line: usize) -> Result<[f32; 3], String> {
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
        if o.abs() > half::f16::MAX.to_f32() {
            return Err(format!(
                "line {line}: `{p}` is outside the half-float range (±65504)"
            ));
        }
    }
    Ok(out)
}

/// A `LUT_*_SIZE` line's size, 2 to `max`.
fn size(parts: &[&str], line: usize, max: u32) -> Result<u32, String> {
    match parts.get(1).and_then(|s| s.parse::<u32>().ok()) {
        Some(n) if (2..=max).contains(&n) && parts.len() == 2 => Ok(n),
        _ => Err(format!("line {line}: {} must be 2..={max}", parts[0])),
    }
}

/// A `LUT_*_INPUT_RANGE` line's minimum and maximum, for all three channels.
fn range(parts: &[&str], line: usize) -> Result<([f32; 3], [f32; 3]), String> {
    if parts.len() != 3 {
        return Err(format!("line {line}: {} needs two numbers", parts[0]));
    }
    let mut values = [0.0f32; 2];
    for (v, p) in values.iter_mut().zip(&parts[1..]) {
        *v = p
            .parse::<f32>()
            .map_err(|_| format!("line {line}: {}: `{p}` is not a number", parts[0]))?;
        if !v.is_finite() {
            return Err(format!("line {line}: {}: `{p}` is not finite", parts[0]));
        }
    }
    Ok(([values[0]; 3], [values[1]; 3]))
}

fn apply_range(range: Option<([f32; 3], [f32; 3])>, table: &mut Option<Table>) {
    if let (Some((min, max)), Some(t)) = (range, table) {
        (t.min, t.max) = (min, max);
    }
}

/// A declared table has all its rows and a non-empty, finite input domain.
fn check_table(
    name: &str,
    table: Option<&Table>,
    rows: impl Fn(&Table) -> usize,
) -> Result<(), String> {
    let Some(t) = table else {
        return Ok(());
    };
    let rows = rows(t);
    if t.rgb.len() != rows {
        return Err(format!(
            "{} rows, but {name} {} needs {rows}",
            t.rgb.len(),
            t.size
        ));
    }
    // `!(min < max)`, not `min >= max`: a NaN must fail too.
    if (0..3).any(|c| !(t.min[c] < t.max[c] && (t.max[c] - t.min[c]).is_finite())) {
        return Err(format!(
            "{name}: the input domain {:?}..{:?} is empty or not finite: each minimum must be below its maximum",
            t.min, t.max
        ));
    }
    Ok(())
}

/// A 1D shaper (and the 3D table after it, if any) folded into one 3D table of
/// [`FOLDED_SIZE`]³ over the shaper's input range.
fn fold(t1: &Table, t3: Option<&Table>) -> Table {
    let n = FOLDED_SIZE as usize;
    let at = |c: usize, i: usize| t1.min[c] + (t1.max[c] - t1.min[c]) * i as f32 / (n - 1) as f32;
    let mut rgb = Vec::with_capacity(n * n * n);
    for b in 0..n {
        for g in 0..n {
            for r in 0..n {
                let shaped = t1.sample_1d([at(0, r), at(1, g), at(2, b)]);
                rgb.push(match t3 {
                    Some(t3) => t3.sample_3d(shaped),
                    None => shaped,
                });
            }
        }
    }
    Table {
        size: FOLDED_SIZE,
        min: t1.min,
        max: t1.max,
        rgb,
    }
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
        assert!(parse("LUT_1D_SIZE 16\n").unwrap_err().contains("needs 16"));
        assert!(parse("LUT_3D_SIZE 2\n").unwrap_err().contains("needs 8"));
        assert!(parse("LUT_3D_SIZE 1\n").is_err());
        assert!(parse("FOO 1\n").unwrap_err().contains("unknown keyword"));
        assert!(parse("").is_err());
        assert!(parse("0 0 0\n").unwrap_err().contains("data before"));
    }

    #[test]
    fn non_finite_or_empty_domains_and_values_are_errors() {
        let table = "0 0 0\n1 0 0\n0 1 0\n1 1 0\n0 0 1\n1 0 1\n0 1 1\n1 1 1\n";
        let with = |header: &str| parse(&format!("LUT_3D_SIZE 2\n{header}{table}"));
        assert!(with("").is_ok());
        for (header, needle) in [
            ("LUT_3D_INPUT_RANGE nan nan\n", "line 2"),
            ("LUT_3D_INPUT_RANGE 0 inf\n", "not finite"),
            ("LUT_1D_INPUT_RANGE -inf 1\n", "not finite"),
            ("LUT_3D_INPUT_RANGE 0 x\n", "not a number"),
            ("DOMAIN_MIN nan 0 0\n", "not finite"),
            ("DOMAIN_MAX 1 1 NaN\n", "not finite"),
            (
                "DOMAIN_MIN 1 0 0\nDOMAIN_MAX 1 1 1\n",
                "minimum must be below",
            ),
            ("LUT_3D_INPUT_RANGE 2 1\n", "minimum must be below"),
            ("DOMAIN_MAX 1e30 1 1\n", "half-float range"),
        ] {
            let err = with(header).unwrap_err();
            assert!(err.contains(needle), "{header:?}: {err}");
        }
        let err = parse(&format!(
            "LUT_3D_SIZE 2\n{}",
            table.replace("1 1 1", "1 nan 1")
        ))
        .unwrap_err();
        assert!(
            err.contains("line 9") && err.contains("not finite"),
            "{err}"
        );
        let err = parse(&format!(
            "LUT_3D_SIZE 2\n{}",
            table.replace("1 1 1", "1 1e9 1")
        ))
        .unwrap_err();
        assert!(err.contains("half-float"), "{err}");
    }

    #[test]
    fn folds_1d_tables_and_shapers_into_3d() {
        // A 1D curve squaring each channel over 0..1.
        let mut text = String::from("LUT_1D_SIZE 5\n");
        for i in 0..5 {
            let v = (i as f32 / 4.0).powi(2);
            text += &format!("{v} {v} {v}\n");
        }
        let lut = parse(&text).unwrap();
        assert_eq!(lut.size, FOLDED_SIZE);
        let n = FOLDED_SIZE as usize;
        // The last grid point along red maps 1 -> 1; the middle one 0.5 -> 0.25 exactly.
        assert!((lut.rgb[n - 1][0] - 1.0).abs() < 1e-6);
        assert!((lut.rgb[n / 2][0] - 0.25).abs() < 1e-6);
        // A shaper that doubles, then an identity 3D table over 0..2.
        let mut text = String::from("LUT_1D_SIZE 2\nLUT_1D_INPUT_RANGE 0 1\nLUT_3D_SIZE 2\nLUT_3D_INPUT_RANGE 0 2\n0 0 0\n2 2 2\n");
        for b in 0..2 {
            for g in 0..2 {
                for r in 0..2 {
                    text += &format!("{} {} {}\n", r * 2, g * 2, b * 2);
                }
            }
        }
        let lut = parse(&text).unwrap();
        assert!(
            (lut.rgb[n / 2][0] - 1.0).abs() < 1e-5,
            "0.5 -> shaper 1.0 -> identity 1.0: {:?}",
            lut.rgb[n / 2]
        );
    }
}
