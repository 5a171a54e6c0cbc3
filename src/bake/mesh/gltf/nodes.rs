//! Nodes: which meshes are baked, each with the matrix that moves it (its node's world
//! transform and the mesh settings) and, when each node is its own instance, the node.

use super::{ImportOptions, Mat4};
use std::collections::HashSet;

/// A mesh to bake, in the space `matrix` moves it to.
pub(super) struct MeshInstance<'a> {
    /// The glTF mesh.
    pub mesh: gltf::Mesh<'a>,
    /// Its node's world matrix times the mesh settings, or those settings alone (or identity
    /// for skinned meshes).
    pub matrix: Mat4,
    /// The node, when each node is its own instance (`merge`).
    pub node: Option<gltf::Node<'a>>,
}

/// Whether the mesh settings' `mesh_name` picks `mesh` (shown by `node`, when there is one).
fn wanted(mesh_name: Option<&str>, node: Option<&gltf::Node<'_>>, mesh: &gltf::Mesh<'_>) -> bool {
    match mesh_name {
        None => true,
        Some(name) => match node {
            Some(node) => node.name() == Some(name) || mesh.name() == Some(name),
            None => mesh.name() == Some(name),
        },
    }
}

/// The meshes to bake: every mesh node of the default scene with `merge`, else each mesh once
/// in its own space; an error when `mesh_name` picks none.
pub(super) fn mesh_instances<'a>(
    document: &'a gltf::Document,
    options: &ImportOptions<'_>,
    skinned_meshes: &HashSet<usize>,
) -> Result<Vec<MeshInstance<'a>>, String> {
    let instances = if options.merge || options.scene_name.is_some() {
        scene_instances(document, options, skinned_meshes)?
    } else {
        document
            .meshes()
            .filter(|m| {
                wanted(options.mesh_name, None, m)
                    || document.nodes().any(|n| {
                        n.mesh().is_some_and(|own| own.index() == m.index())
                            && wanted(options.mesh_name, Some(&n), m)
                    })
            })
            .map(|m| {
                let skinned = skinned_meshes.contains(&m.index());
                MeshInstance {
                    mesh: m,
                    matrix: if skinned {
                        Mat4::IDENTITY
                    } else {
                        options.user
                    },
                    node: None,
                }
            })
            .collect()
    };
    if let (Some(name), true) = (options.mesh_name, instances.is_empty()) {
        let mut names: Vec<&str> = document
            .nodes()
            .filter(|n| n.mesh().is_some())
            .filter_map(|n| n.name())
            .chain(document.meshes().filter_map(|m| m.name()))
            .collect();
        names.sort_unstable();
        names.dedup();
        return Err(format!(
            "no mesh node or mesh named {name:?} (the file has {names:?})"
        ));
    }
    Ok(instances)
}

/// The mesh nodes of the scene `scene_name` picks (else the default one), walked from its
/// roots: with `merge`, each node is an instance in world space; without, each mesh once.
fn scene_instances<'a>(
    document: &'a gltf::Document,
    options: &ImportOptions<'_>,
    skinned_meshes: &HashSet<usize>,
) -> Result<Vec<MeshInstance<'a>>, String> {
    let user = &options.user;
    let root = match options.scene_name {
        Some(name) => Some(
            document
                .scenes()
                .find(|s| s.name() == Some(name))
                .ok_or_else(|| {
                    let names: Vec<&str> =
                        document.scenes().map(|s| s.name().unwrap_or("")).collect();
                    format!("no scene named {name:?} (the file has {names:?})")
                })?,
        ),
        None => document
            .default_scene()
            .or_else(|| document.scenes().next()),
    };
    let mut instances: Vec<MeshInstance<'a>> = Vec::new();
    let mut stack: Vec<(gltf::Node<'_>, Mat4)> = root
        .iter()
        .flat_map(|s| s.nodes())
        .map(|n| (n, Mat4::IDENTITY))
        .collect();
    let mut visited = 0usize;
    while let Some((node, parent)) = stack.pop() {
        visited += 1;
        if visited > document.nodes().len() * 4 + 16 {
            return Err("node hierarchy has a cycle".into());
        }
        let world = parent * Mat4::from_cols_array_2d(&node.transform().matrix());
        if let Some(mesh) = node
            .mesh()
            .filter(|mesh| wanted(options.mesh_name, Some(&node), mesh))
        {
            if !options.merge {
                // A scene picked by name without merging: each of its meshes once, in
                // its own space.
                if !instances.iter().any(|i| i.mesh.index() == mesh.index()) {
                    let skinned = skinned_meshes.contains(&mesh.index());
                    instances.push(MeshInstance {
                        mesh,
                        matrix: if skinned { Mat4::IDENTITY } else { *user },
                        node: None,
                    });
                }
            } else if node.skin().is_some() {
                // Skinned meshes are never baked into world space (glTF ignores their node
                // transform), nor moved by the mesh settings (their bind matrices would no
                // longer match).
                instances.push(MeshInstance {
                    mesh,
                    matrix: Mat4::IDENTITY,
                    node: Some(node.clone()),
                });
            } else {
                instances.push(MeshInstance {
                    mesh,
                    matrix: *user * world,
                    node: Some(node.clone()),
                });
            }
        }
        stack.extend(node.children().map(|c| (c, world)));
    }
    // Depth-first order reversed by the stack: sort for a stable, source-like order.
    instances.sort_by_key(|i| i.mesh.index());
    Ok(instances)
}
