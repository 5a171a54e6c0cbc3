//! hearth's own USDC ("crate") writer, version 0.8.0.
//!
//! The file is a 64-byte bootstrap (`PXR-USDC`, the version bytes 0, 8, 0 and the offset of
//! the table of contents), the value area (every value too large for its 48-bit inline
//! payload), then the structural sections TOKENS, STRINGS, FIELDS, FIELDSETS, PATHS and
//! SPECS, then the table of contents naming each section's start and size. Tokens, strings,
//! paths, fields (name + value rep), field sets and out-of-line values are deduplicated; small
//! values are inlined.
//! From version 0.4.0 OpenUSD's reader expects the tokens LZ4-compressed and the index lists
//! integer-coded and compressed (`compress.rs`). `int[]` arrays of 16 or more elements are
//! coded the same way (as OpenUSD writes them); other arrays are written uncompressed (the
//! reader takes both), 8-byte aligned so it can map them in place.
//!
//! The layout follows TinyUSDZ's experimental crate writer and what OpenUSD's
//! `crateFile.cpp` reads; the output is a pure function of the [`Layer`]: the same layer
//! gives the same bytes.

mod compress;
mod values;

use crate::export::layer::{Attribute, Layer, Prim, Property, Relationship};
use std::collections::HashMap;

/// The version written.
const VERSION: [u8; 3] = [0, 8, 0];
/// Size of the bootstrap.
const BOOTSTRAP: usize = 64;
/// Spec types (`SdfSpecType`).
const SPEC_ATTRIBUTE: i32 = 1;
const SPEC_PRIM: i32 = 6;
const SPEC_PSEUDO_ROOT: i32 = 7;
const SPEC_RELATIONSHIP: i32 = 8;
/// Ends a field set's run in FIELDSETS.
const FIELD_SET_END: u32 = u32::MAX;

/// `layer` as the bytes of a `.usdc` file. Errors name what could not be written (a
/// connection or target path that is not absolute, a section too large).
pub fn write(layer: &Layer) -> Result<Vec<u8>, String> {
    let mut c = Crate::default();
    // Token 0 must never name a property: the PATHS section marks property elements by a
    // negative token index, which index 0 cannot carry (OpenUSD reserves it the same way).
    c.token(";-)");
    c.path_node(None, "", false);
    c.pseudo_root(layer)?;
    let mut path = String::new();
    for prim in &layer.prims {
        c.prim(prim, 0, &mut path)?;
    }
    c.finish()
}

/// One entry of the path tree: its last element, whether that is a property, its children.
struct PathNode {
    element: u32,
    property: bool,
    children: Vec<u32>,
}

/// The tables being built, and the file so far (bootstrap placeholder + value area).
pub(super) struct Crate {
    out: Vec<u8>,
    tokens: Vec<String>,
    token_ids: HashMap<String, u32>,
    strings: Vec<u32>,
    string_ids: HashMap<String, u32>,
    paths: Vec<PathNode>,
    path_ids: HashMap<String, u32>,
    fields: Vec<(u32, u64)>,
    field_ids: HashMap<(u32, u64), u32>,
    field_sets: Vec<u32>,
    field_set_ids: HashMap<Vec<u32>, u32>,
    specs: Vec<(i32, i32, i32)>,
    /// Out-of-line values written so far, by (alignment, bytes): their offsets.
    values: HashMap<(usize, Vec<u8>), u64>,
}

impl Default for Crate {
    fn default() -> Self {
        Self {
            out: vec![0; BOOTSTRAP],
            tokens: Vec::new(),
            token_ids: HashMap::new(),
            strings: Vec::new(),
            string_ids: HashMap::new(),
            paths: Vec::new(),
            path_ids: HashMap::new(),
            fields: Vec::new(),
            field_ids: HashMap::new(),
            field_sets: Vec::new(),
            field_set_ids: HashMap::new(),
            specs: Vec::new(),
            values: HashMap::new(),
        }
    }
}

impl Crate {
    /// The index of `token`, added on first use.
    pub(super) fn token(&mut self, token: &str) -> u32 {
        if let Some(&id) = self.token_ids.get(token) {
            return id;
        }
        let id = self.tokens.len() as u32;
        self.tokens.push(token.to_owned());
        self.token_ids.insert(token.to_owned(), id);
        id
    }

    /// The index of `string` in STRINGS (each string is a token index).
    pub(super) fn string(&mut self, string: &str) -> u32 {
        if let Some(&id) = self.string_ids.get(string) {
            return id;
        }
        let token = self.token(string);
        let id = self.strings.len() as u32;
        self.strings.push(token);
        self.string_ids.insert(string.to_owned(), id);
        id
    }

    /// Adds a path under `parent` (the root when `None`), returning its index.
    fn path_node(&mut self, parent: Option<u32>, element: &str, property: bool) -> u32 {
        let id = self.paths.len() as u32;
        let element = self.token(element);
        self.paths.push(PathNode {
            element,
            property,
            children: Vec::new(),
        });
        if let Some(parent) = parent {
            self.paths[parent as usize].children.push(id);
        }
        id
    }

    /// The node for `full` (the absolute path of `element` under `parent`), added on first use.
    fn child(&mut self, parent: u32, element: &str, property: bool, full: &str) -> u32 {
        if let Some(&id) = self.path_ids.get(full) {
            return id;
        }
        let id = self.path_node(Some(parent), element, property);
        self.path_ids.insert(full.to_owned(), id);
        id
    }

    /// The index of the absolute path `path` (`/A/B` or `/A/B.prop`), adding it and its
    /// ancestors on first use (a target may name a prim or property written later).
    pub(super) fn path(&mut self, path: &str) -> Result<u32, String> {
        if let Some(&id) = self.path_ids.get(path) {
            return Ok(id);
        }
        let (prim, property) = match path.split_once('.') {
            Some((prim, property)) => (prim, Some(property)),
            None => (path, None),
        };
        let Some(relative) = prim.strip_prefix('/') else {
            return Err(format!("USD path `{path}` is not absolute"));
        };
        let mut at = 0u32;
        let mut so_far = String::new();
        for element in relative.split('/').filter(|e| !e.is_empty()) {
            so_far.push('/');
            so_far.push_str(element);
            at = self.child(at, element, false, &so_far);
        }
        if let Some(property) = property {
            at = self.child(at, property, true, path);
        }
        Ok(at)
    }

    /// The index of the field (name, rep).
    fn field(&mut self, name: &str, rep: u64) -> u32 {
        let key = (self.token(name), rep);
        if let Some(&id) = self.field_ids.get(&key) {
            return id;
        }
        let id = self.fields.len() as u32;
        self.fields.push(key);
        self.field_ids.insert(key, id);
        id
    }

    /// Records a spec of `spec_type` at path index `path` with `fields` (name, rep).
    fn spec(&mut self, path: u32, spec_type: i32, fields: &[(&str, u64)]) {
        let ids: Vec<u32> = fields.iter().map(|&(n, rep)| self.field(n, rep)).collect();
        let set = match self.field_set_ids.get(&ids) {
            Some(&set) => set,
            None => {
                let set = self.field_sets.len() as u32;
                self.field_sets.extend_from_slice(&ids);
                self.field_sets.push(FIELD_SET_END);
                self.field_set_ids.insert(ids, set);
                set
            }
        };
        self.specs.push((path as i32, set as i32, spec_type));
    }

    /// The pseudo-root: the layer's metadata and its root prims.
    fn pseudo_root(&mut self, layer: &Layer) -> Result<(), String> {
        let mut fields = Vec::new();
        let metadata = layer
            .metadata
            .iter()
            .map(|(k, v)| Ok((k.clone(), self.value(v)?)))
            .collect::<Result<Vec<(String, u64)>, String>>()?;
        fields.extend(metadata.iter().map(|(k, rep)| (k.as_str(), *rep)));
        let names: Vec<String> = layer.prims.iter().map(|p| p.name.clone()).collect();
        if !names.is_empty() {
            fields.push(("primChildren", self.token_vector(&names)));
        }
        self.spec(0, SPEC_PSEUDO_ROOT, &fields);
        Ok(())
    }

    /// A prim spec, its properties and its children; `path` is the parent's path (restored
    /// on return).
    fn prim(&mut self, prim: &Prim, parent: u32, path: &mut String) -> Result<(), String> {
        let parent_len = path.len();
        path.push('/');
        path.push_str(&prim.name);
        let full = path.clone();
        let id = self.child(parent, &prim.name, false, &full);
        let mut fields = vec![("specifier", Self::specifier(prim.specifier))];
        if !prim.type_name.is_empty() {
            fields.push((
                "typeName",
                values::inlined(values::ty::TOKEN, self.token(&prim.type_name)),
            ));
        }
        let metadata = prim
            .metadata
            .iter()
            .map(|(k, v)| Ok((k.clone(), self.value(v)?)))
            .collect::<Result<Vec<(String, u64)>, String>>()?;
        fields.extend(metadata.iter().map(|(k, rep)| (k.as_str(), *rep)));
        if !prim.api_schemas.is_empty() {
            fields.push(("apiSchemas", self.prepended_tokens(&prim.api_schemas)));
        }
        if !prim.references.is_empty() {
            fields.push(("references", self.prepended_references(&prim.references)?));
        }
        let children: Vec<String> = prim.children.iter().map(|p| p.name.clone()).collect();
        if !children.is_empty() {
            fields.push(("primChildren", self.token_vector(&children)));
        }
        let properties: Vec<String> = prim
            .properties
            .iter()
            .map(|p| p.name().to_owned())
            .collect();
        if !properties.is_empty() {
            fields.push(("properties", self.token_vector(&properties)));
        }
        self.spec(id, SPEC_PRIM, &fields);
        for property in &prim.properties {
            let full = format!("{path}.{}", property.name());
            let prop_id = self.child(id, property.name(), true, &full);
            match property {
                Property::Attribute(a) => self.attribute(prop_id, a)?,
                Property::Relationship(r) => self.relationship(prop_id, r)?,
            }
        }
        for child in &prim.children {
            self.prim(child, id, path)?;
        }
        path.truncate(parent_len);
        Ok(())
    }

    /// An attribute spec, with the fields OpenUSD writes for one (`custom`, `typeName`,
    /// `variability` always).
    fn attribute(&mut self, id: u32, a: &Attribute) -> Result<(), String> {
        let type_name = values::inlined(values::ty::TOKEN, self.token(&a.type_name));
        let mut fields: Vec<(String, u64)> = vec![
            ("custom".into(), values::inlined(values::ty::BOOL, 0)),
            ("typeName".into(), type_name),
            ("variability".into(), Self::variability(a.uniform)),
        ];
        if let Some(default) = &a.default {
            fields.push(("default".into(), self.value(default)?));
        }
        if !a.samples.is_empty() {
            fields.push(("timeSamples".into(), self.time_samples(&a.samples)?));
        }
        if !a.connections.is_empty() {
            fields.push((
                "connectionPaths".into(),
                self.explicit_paths(&a.connections)?,
            ));
        }
        for (k, v) in &a.metadata {
            let rep = self.value(v)?;
            fields.push((k.clone(), rep));
        }
        let fields: Vec<(&str, u64)> = fields.iter().map(|(k, r)| (k.as_str(), *r)).collect();
        self.spec(id, SPEC_ATTRIBUTE, &fields);
        Ok(())
    }

    /// A relationship spec: uniform, with explicit targets.
    fn relationship(&mut self, id: u32, r: &Relationship) -> Result<(), String> {
        let targets = self.explicit_paths(&r.targets)?;
        let fields = [
            ("variability", Self::variability(true)),
            ("targetPaths", targets),
        ];
        self.spec(id, SPEC_RELATIONSHIP, &fields);
        Ok(())
    }

    /// The path tree in depth-first order as three parallel lists: the path index, its
    /// element token (negative for a property), and the jump (-2 leaf, -1 child next, 0
    /// sibling next, n > 0 child next and sibling n entries on).
    fn path_lists(&self) -> (Vec<i32>, Vec<i32>, Vec<i32>) {
        let n = self.paths.len();
        let (mut indexes, mut elements, mut jumps) = (
            Vec::with_capacity(n),
            Vec::with_capacity(n),
            Vec::with_capacity(n),
        );
        let mut next_sibling = vec![None; n];
        for node in &self.paths {
            for pair in node.children.windows(2) {
                next_sibling[pair[0] as usize] = Some(pair[1]);
            }
        }
        // (node, its next sibling); an explicit stack rather than recursion.
        let mut stack: Vec<(u32, Option<u32>)> = vec![(0, None)];
        // Entries whose sibling jump is filled in once the sibling's position is known.
        let mut pending: HashMap<u32, usize> = HashMap::new();
        while let Some((node, sibling)) = stack.pop() {
            let at = indexes.len();
            if let Some(from) = pending.remove(&node) {
                jumps[from] = (at - from) as i32;
            }
            let entry = &self.paths[node as usize];
            indexes.push(node as i32);
            let element = entry.element as i32;
            elements.push(if entry.property { -element } else { element });
            let has_child = !entry.children.is_empty();
            jumps.push(match (has_child, sibling.is_some()) {
                (true, true) => {
                    pending.insert(sibling.unwrap_or_default(), at);
                    0
                }
                (true, false) => -1,
                (false, true) => 0,
                (false, false) => -2,
            });
            if let Some(sibling) = sibling {
                stack.push((sibling, next_sibling[sibling as usize]));
            }
            if let Some(&first) = entry.children.first() {
                stack.push((first, next_sibling[first as usize]));
            }
        }
        (indexes, elements, jumps)
    }

    /// Writes the structural sections and the table of contents after the value area, and
    /// the bootstrap before it.
    fn finish(mut self) -> Result<Vec<u8>, String> {
        let mut sections: Vec<(&str, u64, u64)> = Vec::new();
        let mut section = |c: &mut Self, name: &'static str, bytes: Vec<u8>| {
            let start = c.out.len() as u64;
            c.out.extend_from_slice(&bytes);
            sections.push((name, start, bytes.len() as u64));
        };
        let tokens = self.tokens_section()?;
        section(&mut self, "TOKENS", tokens);
        let mut strings = (self.strings.len() as u64).to_le_bytes().to_vec();
        strings.extend(self.strings.iter().flat_map(|s| s.to_le_bytes()));
        section(&mut self, "STRINGS", strings);
        let fields = self.fields_section()?;
        section(&mut self, "FIELDS", fields);
        let mut field_sets = (self.field_sets.len() as u64).to_le_bytes().to_vec();
        let sets: Vec<i32> = self.field_sets.iter().map(|&f| f as i32).collect();
        field_sets.extend(compress::compressed_ints(&sets)?);
        section(&mut self, "FIELDSETS", field_sets);
        let paths = self.paths_section()?;
        section(&mut self, "PATHS", paths);
        let mut specs = (self.specs.len() as u64).to_le_bytes().to_vec();
        for pick in [
            |s: &(i32, i32, i32)| s.0,
            |s: &(i32, i32, i32)| s.1,
            |s: &(i32, i32, i32)| s.2,
        ] {
            let list: Vec<i32> = self.specs.iter().map(pick).collect();
            specs.extend(compress::compressed_ints(&list)?);
        }
        section(&mut self, "SPECS", specs);
        let toc = self.out.len() as u64;
        self.out
            .extend_from_slice(&(sections.len() as u64).to_le_bytes());
        for (name, start, size) in sections {
            let mut padded = [0u8; 16];
            padded[..name.len()].copy_from_slice(name.as_bytes());
            self.out.extend_from_slice(&padded);
            self.out.extend_from_slice(&start.to_le_bytes());
            self.out.extend_from_slice(&size.to_le_bytes());
        }
        self.out[..8].copy_from_slice(b"PXR-USDC");
        self.out[8..11].copy_from_slice(&VERSION);
        self.out[16..24].copy_from_slice(&toc.to_le_bytes());
        Ok(self.out)
    }

    /// TOKENS: the count, the size of the NUL-terminated strings, and those compressed.
    fn tokens_section(&self) -> Result<Vec<u8>, String> {
        let mut blob = Vec::new();
        for token in &self.tokens {
            blob.extend_from_slice(token.as_bytes());
            blob.push(0);
        }
        let compressed = compress::fast_compress(&blob)?;
        let mut out = Vec::with_capacity(compressed.len() + 24);
        out.extend_from_slice(&(self.tokens.len() as u64).to_le_bytes());
        out.extend_from_slice(&(blob.len() as u64).to_le_bytes());
        out.extend_from_slice(&(compressed.len() as u64).to_le_bytes());
        out.extend_from_slice(&compressed);
        Ok(out)
    }

    /// FIELDS: the count, the name tokens integer-coded, the value reps LZ4-compressed.
    fn fields_section(&self) -> Result<Vec<u8>, String> {
        let mut out = (self.fields.len() as u64).to_le_bytes().to_vec();
        let names: Vec<i32> = self.fields.iter().map(|f| f.0 as i32).collect();
        out.extend(compress::compressed_ints(&names)?);
        let reps: Vec<u8> = self.fields.iter().flat_map(|f| f.1.to_le_bytes()).collect();
        let reps = compress::fast_compress(&reps)?;
        out.extend_from_slice(&(reps.len() as u64).to_le_bytes());
        out.extend_from_slice(&reps);
        Ok(out)
    }

    /// PATHS: the path count (twice: the table's size, then the entries encoded) and the
    /// three lists of [`path_lists`](Self::path_lists), each compressed.
    fn paths_section(&self) -> Result<Vec<u8>, String> {
        let (indexes, elements, jumps) = self.path_lists();
        let mut out = (self.paths.len() as u64).to_le_bytes().to_vec();
        out.extend_from_slice(&(indexes.len() as u64).to_le_bytes());
        for list in [&indexes, &elements, &jumps] {
            out.extend(compress::compressed_ints(list)?);
        }
        Ok(out)
    }
}
