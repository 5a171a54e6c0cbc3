//! The data model both USD writers share: one layer of prim, attribute and relationship specs,
//! already composed (no references, variants or list edits beyond `prepend apiSchemas`).
//!
//! Paths are absolute strings (`/Model/Mesh.points`); the writers take the names as given, so
//! the builders make every prim and property name a valid USD identifier first
//! ([`identifier`]).

/// One value of an attribute, a time sample or a metadata field. Role types (`point3f[]`,
/// `normal3f[]`, `texCoord2f[]`, `color3f[]`) share their storage type here; the attribute's
/// type name says which role it has.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// `bool`.
    Bool(bool),
    /// `int`.
    Int(i32),
    /// `float`.
    Float(f32),
    /// `double`.
    Double(f64),
    /// `token`.
    Token(String),
    /// `asset` (a path written `@…@`).
    Asset(String),
    /// `string`.
    String(String),
    /// `float2`, `texCoord2f`.
    Float2([f32; 2]),
    /// `float3`, `color3f`, `normal3f`, `point3f`, `vector3f`.
    Float3([f32; 3]),
    /// `float4`, `color4f`.
    Float4([f32; 4]),
    /// `double3`.
    Double3([f64; 3]),
    /// `quatf`, stored as USD stores it: imaginary `i, j, k` first, then the real part.
    Quatf([f32; 4]),
    /// `matrix4d`, row-major as USD writes it (row vectors: the translation is row 3).
    Matrix4d([f64; 16]),
    /// `int[]`.
    IntArray(Vec<i32>),
    /// `float[]`.
    FloatArray(Vec<f32>),
    /// `float2[]`, `texCoord2f[]`.
    Float2Array(Vec<[f32; 2]>),
    /// `float3[]`, `point3f[]`, `normal3f[]`, `color3f[]`, `vector3f[]`.
    Float3Array(Vec<[f32; 3]>),
    /// `quatf[]` (imaginary part first, as [`Value::Quatf`]).
    QuatfArray(Vec<[f32; 4]>),
    /// `half3[]` (held as `f32`, rounded to half precision when written).
    Half3Array(Vec<[f32; 3]>),
    /// `matrix4d[]`.
    Matrix4dArray(Vec<[f64; 16]>),
    /// `token[]`.
    TokenArray(Vec<String>),
}

/// A prim's specifier.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Specifier {
    /// `def`: the prim is defined here.
    Def,
    /// `over`: an opinion on a prim defined elsewhere.
    Over,
    /// `class`: an abstract prim others inherit from.
    Class,
}

/// An attribute spec.
#[derive(Debug, Clone, PartialEq)]
pub struct Attribute {
    /// Its name, namespaced with `:` (`primvars:st`, `inputs:diffuseColor`).
    pub name: String,
    /// Its value type name (`point3f[]`, `token`, `color3f`).
    pub type_name: String,
    /// `uniform` (does not vary over time) rather than varying.
    pub uniform: bool,
    /// Its default value, when authored.
    pub default: Option<Value>,
    /// Time samples (time code, value), ascending, when animated.
    pub samples: Vec<(f64, Value)>,
    /// Connections (`.connect`): absolute property paths.
    pub connections: Vec<String>,
    /// Metadata fields (`interpolation`, `elementSize`, `colorSpace`), in order.
    pub metadata: Vec<(String, Value)>,
}

impl Attribute {
    /// A varying attribute of `type_name` holding `value`.
    pub fn new(name: &str, type_name: &str, value: Value) -> Self {
        Self {
            name: name.to_owned(),
            type_name: type_name.to_owned(),
            uniform: false,
            default: Some(value),
            samples: Vec::new(),
            connections: Vec::new(),
            metadata: Vec::new(),
        }
    }

    /// A uniform attribute of `type_name` holding `value`.
    pub fn uniform(name: &str, type_name: &str, value: Value) -> Self {
        Self {
            uniform: true,
            ..Self::new(name, type_name, value)
        }
    }

    /// An attribute with no value (an output, or one only connected).
    pub fn declared(name: &str, type_name: &str) -> Self {
        Self {
            default: None,
            ..Self::new(name, type_name, Value::Bool(false))
        }
    }

    /// This attribute, connected to `target` (an absolute property path).
    pub fn connected(mut self, target: String) -> Self {
        self.connections.push(target);
        self
    }

    /// This attribute with metadata field `key` set to `value`.
    pub fn with(mut self, key: &str, value: Value) -> Self {
        self.metadata.push((key.to_owned(), value));
        self
    }
}

/// A relationship spec.
#[derive(Debug, Clone, PartialEq)]
pub struct Relationship {
    /// Its name (`material:binding`, `skel:skeleton`).
    pub name: String,
    /// Its targets: absolute prim or property paths.
    pub targets: Vec<String>,
}

/// A property spec.
// Attributes are most properties, so boxing them would only add an allocation each.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq)]
pub enum Property {
    /// An attribute.
    Attribute(Attribute),
    /// A relationship.
    Relationship(Relationship),
}

impl Property {
    /// The property's name.
    pub fn name(&self) -> &str {
        match self {
            Self::Attribute(a) => &a.name,
            Self::Relationship(r) => &r.name,
        }
    }
}

/// A prim spec and its subtree.
#[derive(Debug, Clone, PartialEq)]
pub struct Prim {
    /// Its name (an identifier).
    pub name: String,
    /// `def`, `over` or `class`.
    pub specifier: Specifier,
    /// Its schema type (`Mesh`, `Xform`, `Material`), empty for a typeless prim.
    pub type_name: String,
    /// Applied API schemas (`MaterialBindingAPI`), written as `prepend apiSchemas`.
    pub api_schemas: Vec<String>,
    /// References to other layers' prims, (asset path, absolute prim path), written as
    /// `prepend references`.
    pub references: Vec<(String, String)>,
    /// Metadata fields (`kind`), in order.
    pub metadata: Vec<(String, Value)>,
    /// Its properties, in order.
    pub properties: Vec<Property>,
    /// Its child prims, in order.
    pub children: Vec<Prim>,
}

impl Prim {
    /// A `def` of `type_name` named `name`, with nothing in it.
    pub fn def(name: &str, type_name: &str) -> Self {
        Self {
            name: name.to_owned(),
            specifier: Specifier::Def,
            type_name: type_name.to_owned(),
            api_schemas: Vec::new(),
            references: Vec::new(),
            metadata: Vec::new(),
            properties: Vec::new(),
            children: Vec::new(),
        }
    }

    /// Adds an attribute.
    pub fn attr(&mut self, attribute: Attribute) -> &mut Self {
        self.properties.push(Property::Attribute(attribute));
        self
    }

    /// Adds a varying attribute holding `value`.
    pub fn set(&mut self, name: &str, type_name: &str, value: Value) -> &mut Self {
        self.attr(Attribute::new(name, type_name, value))
    }

    /// Adds a uniform attribute holding `value`.
    pub fn set_uniform(&mut self, name: &str, type_name: &str, value: Value) -> &mut Self {
        self.attr(Attribute::uniform(name, type_name, value))
    }

    /// Adds a vertex-interpolated primvar (or `normals`) holding `value`.
    pub fn set_vertex(&mut self, name: &str, type_name: &str, value: Value) -> &mut Self {
        self.attr(Attribute::new(name, type_name, value).with("interpolation", token("vertex")))
    }

    /// Adds a relationship to `targets`.
    pub fn rel(&mut self, name: &str, targets: Vec<String>) -> &mut Self {
        self.properties.push(Property::Relationship(Relationship {
            name: name.to_owned(),
            targets,
        }));
        self
    }
}

/// A layer: its metadata and its root prims.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Layer {
    /// Layer metadata (`defaultPrim`, `upAxis`, `metersPerUnit`, `timeCodesPerSecond`,
    /// `startTimeCode`, `endTimeCode`, `documentation`), in order.
    pub metadata: Vec<(String, Value)>,
    /// The root prims, in order.
    pub prims: Vec<Prim>,
}

/// A token value.
pub fn token(s: &str) -> Value {
    Value::Token(s.to_owned())
}

/// `name` as a USD identifier: letters, digits and `_`, not starting with a digit, never
/// empty (other characters become `_`; a leading digit gets a `_` before it).
pub fn identifier(name: &str) -> String {
    let mut out: String = name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, '_');
    }
    out
}

/// `base` made unique among `taken` (by a numeric suffix), and recorded there.
pub fn unique_name(base: &str, taken: &mut std::collections::HashSet<String>) -> String {
    let mut name = base.to_owned();
    let mut n = 1u32;
    while !taken.insert(name.clone()) {
        name = format!("{base}_{n}");
        n += 1;
    }
    name
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_are_valid_and_unique() {
        assert_eq!(identifier("Fox#Survey 2"), "Fox_Survey_2");
        assert_eq!(identifier("2b"), "_2b");
        assert_eq!(identifier(""), "_");
        let mut taken = std::collections::HashSet::new();
        assert_eq!(unique_name("a", &mut taken), "a");
        assert_eq!(unique_name("a", &mut taken), "a_1");
    }
}
