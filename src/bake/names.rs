//! Asset names (`assets.hnames`, `docs/names.md`): a pure function from the bake's name
//! claims to its name rows, by the unity-assetdb rules.
//!
//! - An asset's name is the file stem of its **runtime path**, verbatim (`textures/Rock.ktx2`
//!   → `Rock`), unless the manifest's `[content.names]` sets one.
//! - Names are pooled by (name, kind): different kinds never contest (a model's mesh,
//!   material table and clips are all `Chair`).
//! - **No-winner rule**: when two or more claimants share a (stem, kind), every one of them is
//!   renamed: `stem^suffix`, the suffix being its nearest parent folders, as few as make it
//!   unique among the claimants (`Rock^a`, `Rock^b`; deeper `Rock^x/a`). Nobody keeps the
//!   bare name, so renaming an unrelated file never moves a name.
//! - When no suffix separates two claimants (same folders, or one at the root) the bake fails,
//!   naming both.
//! - Sub-assets live in their parent's namespace, outside the global pool: `Model#Sub` for a
//!   material row (by its source material name), an animation clip (by its clip name) or a
//!   file a model bakes beside itself (`Model#tex_0`). Two sub-assets of one parent sharing a
//!   (name, kind) are renamed `Sub^<index>`, every one of them; an unnamed one is its index.

use crate::format::hman::AssetKind;
use std::collections::BTreeMap;

/// One baked file's claim on a name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NameClaim<'a> {
    /// Runtime path (`/`-separated).
    pub path: &'a str,
    /// Its kind.
    pub kind: AssetKind,
    /// Its asset hash.
    pub hash: u64,
    /// The names of its sub-assets, by index: a material table's rows, an animation's clips.
    pub sub_assets: &'a [String],
    /// The claim (index into the claims) in whose namespace this file lives: a texture a model
    /// bakes beside itself. Such a file is named `Parent#stem` and joins no pool.
    pub parent: Option<usize>,
    /// A name set by the manifest (`[content.names]`), taken as it is.
    pub set_name: Option<&'a str>,
}

/// One row of the name table.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct NamedRow {
    /// The name.
    pub name: String,
    /// Its kind.
    pub kind: AssetKind,
    /// The asset hash of the file.
    pub hash: u64,
    /// The file's runtime path.
    pub path: String,
    /// The row or clip index inside the file; `None` for a whole file.
    pub sub: Option<u32>,
}

/// The file stem of a runtime path: its last component without its last extension.
pub fn stem(path: &str) -> &str {
    let file = path.rsplit('/').next().unwrap_or(path);
    match file.rfind('.') {
        Some(0) | None => file,
        Some(dot) => &file[..dot],
    }
}

/// The parent folders of a runtime path, outermost first.
fn parents(path: &str) -> Vec<&str> {
    let mut parts: Vec<&str> = path.split('/').collect();
    parts.pop();
    parts
}

/// The suffix of depth `depth`: the last `depth` parent folders (all of them when fewer),
/// joined with `/`.
fn suffix(parents: &[&str], depth: usize) -> String {
    parents[parents.len().saturating_sub(depth)..].join("/")
}

/// The names of every claim: rows sorted by (name, kind), or an error naming the files
/// whose names cannot be told apart.
pub fn assign_names(claims: &[NameClaim<'_>]) -> Result<Vec<NamedRow>, String> {
    // The global pool: (stem, kind) -> claimants, by path (claims come in any order).
    let mut pool: BTreeMap<(&str, AssetKind), Vec<usize>> = BTreeMap::new();
    let mut names: Vec<Option<String>> = vec![None; claims.len()];
    for (index, claim) in claims.iter().enumerate() {
        if let Some(parent) = claim.parent {
            if claims.get(parent).is_none_or(|p| p.parent.is_some()) {
                return Err(format!(
                    "`{}`: its parent is not a top-level asset",
                    claim.path
                ));
            }
            continue;
        }
        match claim.set_name {
            Some(name) => names[index] = Some(name.to_owned()),
            None => pool
                .entry((stem(claim.path), claim.kind))
                .or_default()
                .push(index),
        }
    }
    for ((stem, _), mut claimants) in pool {
        claimants.sort_by_key(|&i| claims[i].path);
        if let [only] = claimants[..] {
            names[only] = Some(stem.to_owned());
            continue;
        }
        for (&index, suffix) in claimants.iter().zip(disambiguate(claims, &claimants)?) {
            names[index] = Some(format!("{stem}^{suffix}"));
        }
    }
    let mut rows = Vec::new();
    for (index, claim) in claims.iter().enumerate() {
        let own = match claim.parent {
            Some(parent) => format!(
                "{}#{}",
                names[parent].as_deref().unwrap_or_default(),
                stem(claim.path)
            ),
            None => names[index].clone().unwrap_or_default(),
        };
        rows.extend(sub_asset_rows(&own, claim));
        rows.push(NamedRow {
            name: own,
            kind: claim.kind,
            hash: claim.hash,
            path: claim.path.to_owned(),
            sub: None,
        });
    }
    rows.sort();
    check_unique(&rows)?;
    Ok(rows)
}

/// Each claimant's suffix (claimants sorted by path): its nearest parent folders, as few as
/// make it unique among the claimants.
fn disambiguate(claims: &[NameClaim<'_>], claimants: &[usize]) -> Result<Vec<String>, String> {
    let chains: Vec<Vec<&str>> = claimants.iter().map(|&i| parents(claims[i].path)).collect();
    let deepest = chains.iter().map(Vec::len).max().unwrap_or(0);
    let mut suffixes = Vec::with_capacity(claimants.len());
    for (me, chain) in chains.iter().enumerate() {
        let others = || (0..chains.len()).filter(move |&other| other != me);
        let unique_at = (1..=deepest).find(|&depth| {
            let mine = suffix(chain, depth);
            others().all(|other| suffix(&chains[other], depth) != mine)
        });
        // At the root there is no folder to add; otherwise the claimant whose folders match
        // all the way up is the one it cannot be told from.
        let unique_at = unique_at.filter(|_| !chain.is_empty());
        let Some(depth) = unique_at else {
            let twin = others()
                .find(|&other| chains[other] == *chain || chain.is_empty())
                .unwrap_or(0);
            return Err(format!(
                "`{}` and `{}` claim the name `{}` ({}) and no parent folder tells them \
                 apart; rename one, or set a name in `[content.names]`",
                claims[claimants[me]].path,
                claims[claimants[twin]].path,
                stem(claims[claimants[me]].path),
                claims[claimants[me]].kind,
            ));
        };
        suffixes.push(suffix(chain, depth));
    }
    Ok(suffixes)
}

/// The rows of a file's sub-assets (`Parent#Sub`, sub index set): an unnamed one is its
/// index; names shared within one (name, kind) are renamed `Sub^<index>`, every one of them.
fn sub_asset_rows(parent: &str, claim: &NameClaim<'_>) -> Vec<NamedRow> {
    let base: Vec<String> = (claim.sub_assets.iter().enumerate())
        .map(|(i, name)| match name.is_empty() {
            true => i.to_string(),
            false => name.clone(),
        })
        .collect();
    let mut uses: BTreeMap<&str, usize> = BTreeMap::new();
    for name in &base {
        *uses.entry(name).or_default() += 1;
    }
    (base.iter().enumerate())
        .map(|(i, sub)| NamedRow {
            name: match uses[sub.as_str()] {
                1 => format!("{parent}#{sub}"),
                _ => format!("{parent}#{sub}^{i}"),
            },
            kind: claim.kind,
            hash: claim.hash,
            path: claim.path.to_owned(),
            sub: Some(i as u32),
        })
        .collect()
}

/// Every (name, kind) once (rows sorted), every name storable: a set name, a file whose stem
/// looks like a renamed one (`Rock^a.png`) or like a sub-asset (`Chair#wood.png`) can still
/// meet another name; the error names both files.
fn check_unique(rows: &[NamedRow]) -> Result<(), String> {
    for pair in rows.windows(2) {
        let (a, b) = (&pair[0], &pair[1]);
        if a.name == b.name && a.kind == b.kind {
            return Err(format!(
                "`{}` and `{}` both take the name `{}` ({}); rename one, or set another \
                 name in `[content.names]`",
                a.path, b.path, a.name, a.kind
            ));
        }
    }
    if let Some(bad) = rows
        .iter()
        .find(|r| r.name.is_empty() || r.name.len() > u16::MAX as usize || r.name.contains('\0'))
    {
        return Err(format!(
            "`{}`: its name {:?} is empty, holds NUL or is over 65535 bytes",
            bad.path, bad.name
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn claim(path: &'static str, kind: AssetKind) -> NameClaim<'static> {
        NameClaim {
            path,
            kind,
            hash: crate::format::hash::hash_runtime_path(path),
            sub_assets: &[],
            parent: None,
            set_name: None,
        }
    }

    fn texture(path: &'static str) -> NameClaim<'static> {
        claim(path, AssetKind::TEXTURE)
    }

    /// (name, path) of every row, in table order.
    fn names(claims: &[NameClaim<'_>]) -> Vec<(String, String)> {
        assign_names(claims)
            .unwrap()
            .into_iter()
            .map(|r| (r.name, r.path))
            .collect()
    }

    fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|(n, p)| (n.to_string(), p.to_string()))
            .collect()
    }

    #[test]
    fn a_lone_asset_keeps_its_bare_stem_verbatim() {
        assert_eq!(
            names(&[
                texture("ui/Quest Widget (Side).ktx2"),
                texture("a/b.c/x.y.ktx2")
            ]),
            pairs(&[
                ("Quest Widget (Side)", "ui/Quest Widget (Side).ktx2"),
                ("x.y", "a/b.c/x.y.ktx2"),
            ])
        );
        assert_eq!(stem("top.hmesh"), "top");
        assert_eq!(stem("a/noext"), "noext");
    }

    #[test]
    fn no_winner_every_claimant_is_renamed_with_its_parent_folder() {
        assert_eq!(
            names(&[texture("b/Rock.ktx2"), texture("a/Rock.ktx2")]),
            pairs(&[("Rock^a", "a/Rock.ktx2"), ("Rock^b", "b/Rock.ktx2")])
        );
    }

    #[test]
    fn the_walk_goes_deeper_only_where_needed() {
        // The reference's example: Dependencies -> Dependencies^Editor ->
        // Dependencies^com.google.play.review/Editor.
        let claims = [
            claim(
                "Packages/com.google.play.review/Editor/Dependencies.asmdef",
                AssetKind::BLOB,
            ),
            claim(
                "Packages/com.google.play.core/Editor/Dependencies.asmdef",
                AssetKind::BLOB,
            ),
            claim("Assets/Plugins/Dependencies.asmdef", AssetKind::BLOB),
        ];
        let got: Vec<String> = names(&claims).into_iter().map(|(n, _)| n).collect();
        assert_eq!(
            got,
            [
                "Dependencies^Plugins",
                "Dependencies^com.google.play.core/Editor",
                "Dependencies^com.google.play.review/Editor",
            ]
        );
        // A shallower claimant whose whole chain is a suffix of a deeper one's.
        let got: Vec<String> = names(&[
            texture("a/x/Rock.ktx2"),
            texture("b/x/Rock.ktx2"),
            texture("x/Rock.ktx2"),
        ])
        .into_iter()
        .map(|(n, _)| n)
        .collect();
        assert_eq!(got, ["Rock^a/x", "Rock^b/x", "Rock^x"]);
    }

    #[test]
    fn no_suffix_separating_two_claimants_fails_naming_both() {
        // Same folder, same stem, same kind (`Rock.linear` is another stem).
        assert!(assign_names(&[texture("a/Rock.ktx2"), texture("a/Rock.linear.ktx2")]).is_ok());
        let error = assign_names(&[
            claim("a/Rock.png", AssetKind::BLOB),
            claim("a/Rock.jpg", AssetKind::BLOB),
        ])
        .unwrap_err();
        assert!(
            error.contains("`a/Rock.jpg`") && error.contains("`a/Rock.png`"),
            "{error}"
        );
        // One claimant at the root: no folder to add.
        let error = assign_names(&[texture("Rock.ktx2"), texture("x/Rock.ktx2")]).unwrap_err();
        assert!(
            error.contains("`Rock.ktx2`") && error.contains("`x/Rock.ktx2`"),
            "{error}"
        );
    }

    #[test]
    fn different_kinds_do_not_contest() {
        assert_eq!(
            names(&[
                texture("a/Rock.ktx2"),
                claim("b/Rock.hmesh", AssetKind::MESH),
                claim("c/Rock.ogg", AssetKind::BLOB),
            ]),
            pairs(&[
                ("Rock", "a/Rock.ktx2"),
                ("Rock", "b/Rock.hmesh"),
                ("Rock", "c/Rock.ogg"),
            ])
        );
    }

    #[test]
    fn sub_assets_live_in_their_parents_namespace() {
        let materials = ["wood Brown".to_owned(), "fabric".into(), String::new()];
        let clips = ["Survey".to_owned(), "Walk".into(), "Walk".into()];
        let claims = [
            claim("m/SheenChair.hmesh", AssetKind::MESH),
            NameClaim {
                sub_assets: &materials,
                ..claim("m/SheenChair.hmat", AssetKind::MATERIAL)
            },
            NameClaim {
                sub_assets: &clips,
                ..claim("m/Fox.hanim", AssetKind::ANIMATION)
            },
            NameClaim {
                parent: Some(0),
                ..texture("m/SheenChair/tex_0.ktx2")
            },
            // Another model's tex_0 does not contest: it is in another namespace.
            claim("n/Other.hmesh", AssetKind::MESH),
            NameClaim {
                parent: Some(4),
                ..texture("n/Other/tex_0.ktx2")
            },
        ];
        let rows = assign_names(&claims).unwrap();
        let got: Vec<(&str, Option<u32>)> = rows.iter().map(|r| (r.name.as_str(), r.sub)).collect();
        assert_eq!(
            got,
            [
                ("Fox", None),
                ("Fox#Survey", Some(0)),
                ("Fox#Walk^1", Some(1)),
                ("Fox#Walk^2", Some(2)),
                ("Other", None),
                ("Other#tex_0", None),
                ("SheenChair", None),
                ("SheenChair", None),
                ("SheenChair#2", Some(2)),
                ("SheenChair#fabric", Some(1)),
                ("SheenChair#tex_0", None),
                ("SheenChair#wood Brown", Some(0)),
            ]
        );
        // A renamed parent carries its suffix into its namespace.
        let claims = [
            claim("a/Chair.hmesh", AssetKind::MESH),
            NameClaim {
                parent: Some(0),
                ..texture("a/Chair/tex_0.ktx2")
            },
            claim("b/Chair.hmesh", AssetKind::MESH),
        ];
        let got: Vec<String> = names(&claims).into_iter().map(|(n, _)| n).collect();
        assert_eq!(got, ["Chair^a", "Chair^a#tex_0", "Chair^b"]);
    }

    #[test]
    fn set_names_take_precedence_and_a_colliding_one_fails() {
        let claims = [
            NameClaim {
                set_name: Some("Logo"),
                ..texture("ui/a/Rock.ktx2")
            },
            texture("ui/b/Rock.ktx2"),
        ];
        // The set name leaves the pool: the other claimant is alone and stays bare.
        assert_eq!(
            names(&claims),
            pairs(&[("Logo", "ui/a/Rock.ktx2"), ("Rock", "ui/b/Rock.ktx2")])
        );
        let claims = [
            NameClaim {
                set_name: Some("Rock"),
                ..texture("ui/a/Logo.ktx2")
            },
            texture("ui/b/Rock.ktx2"),
        ];
        let error = assign_names(&claims).unwrap_err();
        assert!(
            error.contains("`ui/a/Logo.ktx2`") && error.contains("`ui/b/Rock.ktx2`"),
            "{error}"
        );
    }

    #[test]
    fn names_are_stable_when_an_unrelated_file_is_renamed() {
        let before = names(&[
            texture("a/Rock.ktx2"),
            texture("b/Rock.ktx2"),
            texture("c/Tree.ktx2"),
        ]);
        let after = names(&[
            texture("a/Rock.ktx2"),
            texture("b/Rock.ktx2"),
            texture("c/Bush.ktx2"),
        ]);
        let rocks = |rows: &[(String, String)]| -> Vec<(String, String)> {
            rows.iter()
                .filter(|(n, _)| n.starts_with("Rock"))
                .cloned()
                .collect()
        };
        assert_eq!(rocks(&before), rocks(&after));
        assert_eq!(rocks(&before).len(), 2);
    }

    #[test]
    fn names_are_deterministic_whatever_the_claims_order() {
        let mut claims = vec![
            texture("a/Rock.ktx2"),
            texture("b/Rock.ktx2"),
            texture("x/y/Rock.ktx2"),
            claim("m/Rock.hmesh", AssetKind::MESH),
        ];
        let first = assign_names(&claims).unwrap();
        claims.reverse();
        assert_eq!(assign_names(&claims).unwrap(), first);
        let bytes = |rows: &[NamedRow]| {
            let rows: Vec<_> = rows
                .iter()
                .map(|r| crate::format::hnames::NameRow {
                    name: &r.name,
                    kind: r.kind,
                    hash: r.hash,
                    path: &r.path,
                    sub: r.sub,
                })
                .collect();
            crate::format::hnames::write(&rows)
        };
        assert_eq!(bytes(&first), bytes(&assign_names(&claims).unwrap()));
    }

    #[test]
    fn a_stem_that_looks_renamed_meets_its_lookalike() {
        let error = assign_names(&[
            texture("a/Rock.ktx2"),
            texture("b/Rock.ktx2"),
            texture("c/Rock^a.ktx2"),
        ])
        .unwrap_err();
        assert!(
            error.contains("`a/Rock.ktx2`") && error.contains("`c/Rock^a.ktx2`"),
            "{error}"
        );
    }
}
