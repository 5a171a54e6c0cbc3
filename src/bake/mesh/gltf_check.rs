//! Structural checks of a glTF document, run before the `gltf` crate validates it or its
//! readers see it (both can panic on malformed input: its validation indexes the POSITION
//! accessor directly, its readers `unreachable!()` on component types they do not expect,
//! `debug_assert!` element sizes and strides, and compute `count - 1` and byte ranges
//! unchecked).
//!
//! Every index an accessor, buffer view, image, primitive, skin or animation uses must exist;
//! every buffer view must lie inside its buffer and every accessor (sparse parts included)
//! inside its buffer view, with a stride no smaller than an element; and every accessor hearth
//! reads must have the type and component type the spec allows for its use. Errors name the
//! object and what is wrong: `accessor 3: indices of FLOAT type`, `image 2: bufferView 9 does
//! not exist`.

use gltf::json::{
    self,
    accessor::{ComponentType, Type},
    animation::Property,
    mesh::Semantic,
    validation::Checked,
};

/// Most elements of an accessor without a buffer view (all zeros but its sparse values): the
/// reader would materialize every one of them.
pub const MAX_UNBACKED_ELEMENTS: u64 = 1 << 24;

fn component_name(component: ComponentType) -> &'static str {
    match component {
        ComponentType::I8 => "BYTE",
        ComponentType::U8 => "UNSIGNED_BYTE",
        ComponentType::I16 => "SHORT",
        ComponentType::U16 => "UNSIGNED_SHORT",
        ComponentType::U32 => "UNSIGNED_INT",
        ComponentType::F32 => "FLOAT",
    }
}

fn type_name(ty: Type) -> &'static str {
    match ty {
        Type::Scalar => "SCALAR",
        Type::Vec2 => "VEC2",
        Type::Vec3 => "VEC3",
        Type::Vec4 => "VEC4",
        Type::Mat2 => "MAT2",
        Type::Mat3 => "MAT3",
        Type::Mat4 => "MAT4",
    }
}

fn names<T: Copy>(items: &[T], name: fn(T) -> &'static str) -> String {
    let names: Vec<&str> = items.iter().map(|i| name(*i)).collect();
    match names.as_slice() {
        [one] => (*one).to_owned(),
        [rest @ .., last] => format!("{} or {last}", rest.join(", ")),
        [] => String::new(),
    }
}

/// `offset + stride * (count - 1) + element` bytes must fit in `available`; the end, or `None`
/// when they overflow.
fn span(offset: u64, stride: u64, count: u64, element: u64) -> Option<u64> {
    stride
        .checked_mul(count.checked_sub(1)?)?
        .checked_add(element)?
        .checked_add(offset)
}

/// Checks `root` (see the module documentation).
pub fn check(root: &json::Root) -> Result<(), String> {
    let mut checker = Checker {
        root,
        kinds: Vec::with_capacity(root.accessors.len()),
    };
    checker.buffer_views()?;
    checker.accessors()?;
    checker.meshes()?;
    checker.skins()?;
    checker.animations()?;
    for (k, image) in root.images.iter().enumerate() {
        if let Some(j) = image.buffer_view {
            checker.view(j.value(), &format!("image {k}"))?;
        }
    }
    Ok(())
}

use ComponentType::{F32, I16, I8, U16, U32, U8};
const ANY_TYPE: [Type; 7] = [
    Type::Scalar,
    Type::Vec2,
    Type::Vec3,
    Type::Vec4,
    Type::Mat2,
    Type::Mat3,
    Type::Mat4,
];
const ANY_COMPONENT: [ComponentType; 6] = [I8, U8, I16, U16, U32, F32];

/// One document's checks, one method per glTF concept, in the order each depends on the last.
struct Checker<'a> {
    root: &'a json::Root,
    /// Each accessor's (component type, type), once [`Checker::accessors`] has checked it.
    kinds: Vec<(ComponentType, Type)>,
}

impl Checker<'_> {
    /// Every buffer view inside its buffer, with a stride the spec allows.
    fn buffer_views(&self) -> Result<(), String> {
        for (j, view) in self.root.buffer_views.iter().enumerate() {
            let b = view.buffer.value();
            let length = self
                .root
                .buffers
                .get(b)
                .map(|buffer| buffer.byte_length.0)
                .ok_or_else(|| format!("bufferView {j}: buffer {b} does not exist"))?;
            let start = view.byte_offset.map_or(0, |o| o.0);
            if start
                .checked_add(view.byte_length.0)
                .is_none_or(|end| end > length)
            {
                return Err(format!(
                    "bufferView {j}: bytes {start}..{} reach outside buffer {b} ({length} bytes)",
                    start.saturating_add(view.byte_length.0)
                ));
            }
            if let Some(stride) = view.byte_stride {
                if !(4..=252).contains(&stride.0) {
                    return Err(format!(
                        "bufferView {j}: byteStride {} is not in 4..=252",
                        stride.0
                    ));
                }
            }
        }
        Ok(())
    }

    fn view(&self, j: usize, user: &str) -> Result<&json::buffer::View, String> {
        self.root
            .buffer_views
            .get(j)
            .ok_or_else(|| format!("{user}: bufferView {j} does not exist"))
    }

    /// Bytes `offset..` of `count` elements of `element` bytes fit in view `j`.
    fn fits(
        &self,
        user: &str,
        j: usize,
        offset: u64,
        count: u64,
        element: u64,
    ) -> Result<(), String> {
        let v = self.view(j, user)?;
        let stride = v.byte_stride.map_or(element, |s| s.0 as u64);
        if stride < element {
            return Err(format!(
                "{user}: bufferView {j}'s byteStride {stride} is smaller than one element ({element} bytes)"
            ));
        }
        match span(offset, stride, count, element) {
            Some(end) if end <= v.byte_length.0 => Ok(()),
            end => Err(format!(
                "{user}: bytes {offset}..{} reach past the end of bufferView {j} ({} bytes)",
                end.map_or("(overflow)".to_owned(), |e| e.to_string()),
                v.byte_length.0
            )),
        }
    }

    /// Every accessor: valid types, at least one element, its bytes (sparse parts included)
    /// inside its buffer views. Records each one's kind for [`Checker::expect`].
    fn accessors(&mut self) -> Result<(), String> {
        for (i, accessor) in self.root.accessors.iter().enumerate() {
            let at = format!("accessor {i}");
            let (Checked::Valid(component), Checked::Valid(ty)) =
                (&accessor.component_type, &accessor.type_)
            else {
                return Err(format!("{at}: invalid componentType or type"));
            };
            let (component, ty) = (component.0, *ty);
            self.kinds.push((component, ty));
            let element = (component.size() * ty.multiplicity()) as u64;
            let count = accessor.count.0;
            if count == 0 {
                return Err(format!("{at}: count is 0"));
            }
            match accessor.buffer_view {
                Some(j) => self.fits(
                    &at,
                    j.value(),
                    accessor.byte_offset.map_or(0, |o| o.0),
                    count,
                    element,
                )?,
                None if accessor.sparse.is_none() => {
                    return Err(format!("{at}: neither a bufferView nor sparse values"))
                }
                None if count > MAX_UNBACKED_ELEMENTS => {
                    return Err(format!(
                    "{at}: {count} elements without a bufferView (at most {MAX_UNBACKED_ELEMENTS})"
                ))
                }
                None => {}
            }
            if let Some(sparse) = &accessor.sparse {
                self.sparse(&at, sparse, count, element)?;
            }
        }
        Ok(())
    }

    /// A sparse accessor's `count`, index type and both parts' bytes.
    fn sparse(
        &self,
        at: &str,
        sparse: &json::accessor::sparse::Sparse,
        count: u64,
        element: u64,
    ) -> Result<(), String> {
        let n = sparse.count.0;
        if n == 0 || n > count {
            return Err(format!(
                "{at}: sparse count {n} for {count} elements (1 to {count})"
            ));
        }
        let index = match &sparse.indices.component_type {
            Checked::Valid(t) if matches!(t.0, U8 | U16 | U32) => t.0,
            Checked::Valid(t) => {
                return Err(format!(
                    "{at}: sparse indices of {} type (UNSIGNED_BYTE, UNSIGNED_SHORT or UNSIGNED_INT expected)",
                    component_name(t.0)
                ))
            }
            Checked::Invalid => {
                return Err(format!(
                    "{at}: sparse indices of an invalid type (UNSIGNED_BYTE, UNSIGNED_SHORT or UNSIGNED_INT expected)"
                ))
            }
        };
        self.fits(
            &format!("{at}: sparse indices"),
            sparse.indices.buffer_view.value(),
            sparse.indices.byte_offset.0,
            n,
            index.size() as u64,
        )?;
        self.fits(
            &format!("{at}: sparse values"),
            sparse.values.buffer_view.value(),
            sparse.values.byte_offset.0,
            n,
            element,
        )
    }

    /// The accessor `i` used as `what` by `user`: it exists, and has one of `types` and one of
    /// `components`.
    fn expect(
        &self,
        user: &str,
        what: &str,
        i: usize,
        types: &[Type],
        components: &[ComponentType],
    ) -> Result<(), String> {
        let (component, ty) = *self
            .kinds
            .get(i)
            .ok_or_else(|| format!("{user}: {what} accessor {i} does not exist"))?;
        if !types.contains(&ty) {
            return Err(format!(
                "{user}: accessor {i}: {what} of type {} ({} expected)",
                type_name(ty),
                names(types, type_name)
            ));
        }
        if !components.contains(&component) {
            return Err(format!(
                "{user}: accessor {i}: {what} of {} type ({} expected)",
                component_name(component),
                names(components, component_name)
            ));
        }
        Ok(())
    }

    /// Every primitive's indices, attributes and morph targets of the types the spec allows.
    fn meshes(&self) -> Result<(), String> {
        for (m, mesh) in self.root.meshes.iter().enumerate() {
            for (p, primitive) in mesh.primitives.iter().enumerate() {
                let user = format!("mesh {m} primitive {p}");
                if let Some(indices) = primitive.indices {
                    self.expect(
                        &user,
                        "indices",
                        indices.value(),
                        &[Type::Scalar],
                        &[U8, U16, U32],
                    )?;
                }
                for (semantic, accessor) in &primitive.attributes {
                    let i = accessor.value();
                    let Checked::Valid(semantic) = semantic else {
                        self.expect(&user, "an attribute", i, &ANY_TYPE, &ANY_COMPONENT)?;
                        continue;
                    };
                    let (types, components) = attribute_kinds(semantic);
                    self.expect(&user, &semantic.to_string(), i, types, components)?;
                }
                for (t, target) in primitive.targets.iter().flatten().enumerate() {
                    for accessor in [&target.positions, &target.normals, &target.tangents]
                        .into_iter()
                        .flatten()
                    {
                        self.expect(
                            &format!("{user} morph target {t}"),
                            "a displacement",
                            accessor.value(),
                            &[Type::Vec3],
                            &ANY_COMPONENT,
                        )?;
                    }
                }
            }
        }
        Ok(())
    }

    fn node(&self, user: &str, n: usize) -> Result<(), String> {
        if n < self.root.nodes.len() {
            Ok(())
        } else {
            Err(format!("{user}: node {n} does not exist"))
        }
    }

    /// Every skin's inverse bind matrices (MAT4 floats) and joints (existing nodes).
    fn skins(&self) -> Result<(), String> {
        for (s, skin) in self.root.skins.iter().enumerate() {
            let user = format!("skin {s}");
            if let Some(matrices) = skin.inverse_bind_matrices {
                self.expect(
                    &user,
                    "inverseBindMatrices",
                    matrices.value(),
                    &[Type::Mat4],
                    &[F32],
                )?;
            }
            for joint in &skin.joints {
                self.node(&user, joint.value())?;
            }
        }
        Ok(())
    }

    /// Every sampler's input and output, every channel's node, sampler and output type.
    fn animations(&self) -> Result<(), String> {
        for (a, animation) in self.root.animations.iter().enumerate() {
            for (s, sampler) in animation.samplers.iter().enumerate() {
                let user = format!("animation {a} sampler {s}");
                self.expect(
                    &user,
                    "input",
                    sampler.input.value(),
                    &[Type::Scalar],
                    &[F32],
                )?;
                self.expect(
                    &user,
                    "output",
                    sampler.output.value(),
                    &ANY_TYPE,
                    &ANY_COMPONENT,
                )?;
            }
            for (c, channel) in animation.channels.iter().enumerate() {
                let user = format!("animation {a} channel {c}");
                self.node(&user, channel.target.node.value())?;
                let s = channel.sampler.value();
                let sampler = animation
                    .samplers
                    .get(s)
                    .ok_or_else(|| format!("{user}: sampler {s} does not exist"))?;
                let Checked::Valid(path) = &channel.target.path else {
                    return Err(format!("{user}: invalid target path"));
                };
                let (types, components): (&[Type], &[ComponentType]) = match path {
                    Property::Translation | Property::Scale => (&[Type::Vec3], &[F32]),
                    Property::Rotation => (&[Type::Vec4], &[F32, I8, U8, I16, U16]),
                    Property::MorphTargetWeights => (&[Type::Scalar], &[F32, I8, U8, I16, U16]),
                };
                self.expect(&user, "output", sampler.output.value(), types, components)?;
            }
        }
        Ok(())
    }
}

/// The types and component types the spec allows for a primitive attribute.
fn attribute_kinds(semantic: &Semantic) -> (&'static [Type], &'static [ComponentType]) {
    match semantic {
        Semantic::Positions | Semantic::Normals => (&[Type::Vec3], &[F32]),
        Semantic::Tangents => (&[Type::Vec4], &[F32]),
        Semantic::TexCoords(_) => (&[Type::Vec2], &[F32, U8, U16]),
        Semantic::Colors(_) => (&[Type::Vec3, Type::Vec4], &[F32, U8, U16]),
        Semantic::Joints(_) => (&[Type::Vec4], &[U8, U16]),
        Semantic::Weights(_) => (&[Type::Vec4], &[F32, U8, U16]),
        #[allow(unreachable_patterns)]
        _ => (&ANY_TYPE, &ANY_COMPONENT),
    }
}
