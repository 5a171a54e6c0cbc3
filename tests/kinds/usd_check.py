# Opens a USD export with Pixar's OpenUSD (usd-core) and prints what the Rust test compares,
# as JSON: the crate version, the validators' errors and warnings, each mesh's points,
# triangles, UVs and bindings, each material's PreviewSurface inputs and textures, and the
# skeleton and animation counts. Run by tests/kinds/usd_export.rs.
import json
import math
import sys

try:
    from pxr import Sdf, Usd, UsdGeom, UsdShade, UsdSkel, UsdValidation
except ImportError as e:
    print("PXR-MISSING: %s" % e)
    sys.exit(3)


def floats(v):
    return [list(x) if hasattr(x, "__len__") else x for x in v]


def input_value(shader, name):
    inp = shader.GetInput(name)
    if not inp:
        return None
    if inp.HasConnectedSource():
        source, output, _ = inp.GetConnectedSource()
        return {"connected": str(source.GetPath()) + ".outputs:" + output}
    v = inp.Get()
    if v is None:
        return None
    if hasattr(v, "__len__") and not isinstance(v, str):
        return list(v)
    return v if not isinstance(v, Sdf.AssetPath) else v.path


# Where a texture shader reads at st = (0.25, 0.75) and (1, 0): the primvar its `st` comes
# from, through a UsdTransform2d as UsdPreviewSurface's specification defines it (in * scale,
# rotated counter-clockwise by `rotation` degrees, + translation).
SAMPLES = [(0.25, 0.75), (1.0, 0.0)]


def coordinates(texture):
    source = texture.GetInput("st").GetConnectedSource()
    if not source:
        return None
    shader = UsdShade.Shader(source[0].GetPrim())
    mapped = list(SAMPLES)
    if shader.GetIdAttr().Get() == "UsdTransform2d":
        scale = shader.GetInput("scale").Get() or (1.0, 1.0)
        angle = math.radians(shader.GetInput("rotation").Get() or 0.0)
        move = shader.GetInput("translation").Get() or (0.0, 0.0)
        c, s = math.cos(angle), math.sin(angle)
        mapped = [(c * u * scale[0] - s * v * scale[1] + move[0],
                   s * u * scale[0] + c * v * scale[1] + move[1]) for u, v in SAMPLES]
        shader = UsdShade.Shader(shader.GetInput("in").GetConnectedSource()[0].GetPrim())
    assert shader.GetIdAttr().Get() == "UsdPrimvarReader_float2", shader.GetPath()
    return {"primvar": shader.GetInput("varname").Get(), "mapped": [list(m) for m in mapped]}


path = sys.argv[1]
out = {"version": None, "errors": [], "warnings": []}
if path.endswith(".usdc"):
    out["version"] = str(Sdf.CrateInfo.Open(path).GetFileVersion())
elif path.endswith(".usdz"):
    inner = Sdf.Layer.FindOrOpen(path)
    out["usdz_root_format"] = inner.GetFileFormat().formatId
stage = Usd.Stage.Open(path)
ctx = UsdValidation.ValidationContext(
    UsdValidation.ValidationRegistry().GetOrLoadAllValidators())
for e in ctx.Validate(stage):
    entry = "%s: %s" % (e.GetName(), e.GetMessage())
    if e.GetType() == UsdValidation.ValidationErrorType.Error:
        out["errors"].append(entry)
    else:
        out["warnings"].append(entry)
out["upAxis"] = UsdGeom.GetStageUpAxis(stage)
out["metersPerUnit"] = UsdGeom.GetStageMetersPerUnit(stage)
out["defaultPrim"] = str(stage.GetDefaultPrim().GetPath())
out["meshes"], out["materials"], out["textures"] = [], [], {}
for prim in stage.Traverse():
    if prim.IsA(UsdGeom.Mesh):
        mesh = UsdGeom.Mesh(prim)
        st = UsdGeom.PrimvarsAPI(prim).GetPrimvar("st")
        subsets = []
        for s in UsdGeom.Subset.GetGeomSubsets(mesh):
            m, _ = UsdShade.MaterialBindingAPI(s.GetPrim()).ComputeBoundMaterial()
            subsets.append([list(s.GetIndicesAttr().Get()), str(m.GetPath()) if m else None])
        m, _ = UsdShade.MaterialBindingAPI(prim).ComputeBoundMaterial()
        shapes = []
        binding = UsdSkel.BindingAPI(prim)
        if binding.GetBlendShapeTargetsRel():
            for target in binding.GetBlendShapeTargetsRel().GetTargets():
                shape = UsdSkel.BlendShape(stage.GetPrimAtPath(target))
                shapes.append(floats(shape.GetOffsetsAttr().Get()))
        out["meshes"].append({
            "blend_shapes": shapes,
            "path": str(prim.GetPath()),
            "points": floats(mesh.GetPointsAttr().Get()),
            "counts": list(mesh.GetFaceVertexCountsAttr().Get()),
            "indices": list(mesh.GetFaceVertexIndicesAttr().Get()),
            "st": floats(st.Get()) if st else None,
            "st1": floats(UsdGeom.PrimvarsAPI(prim).GetPrimvar("st1").Get())
            if UsdGeom.PrimvarsAPI(prim).GetPrimvar("st1") else None,
            "st_interpolation": st.GetInterpolation() if st else None,
            "binding": str(m.GetPath()) if m else None,
            "subsets": subsets,
            "world_translation": list(UsdGeom.Xformable(prim).ComputeLocalToWorldTransform(
                Usd.TimeCode.Default()).ExtractTranslation()),
        })
    elif prim.IsA(UsdShade.Material):
        surface = UsdShade.Material(prim).ComputeSurfaceSource()[0]
        names = ["diffuseColor", "opacity", "opacityThreshold", "metallic", "roughness",
                 "emissiveColor", "normal", "occlusion"]
        out["materials"].append([str(prim.GetPath()), {
            n: input_value(surface, n) for n in names}])
    elif prim.IsA(UsdShade.Shader):
        shader = UsdShade.Shader(prim)
        if shader.GetIdAttr().Get() == "UsdUVTexture":
            out["textures"][str(prim.GetPath())] = {
                "file": input_value(shader, "file"),
                "resolved": shader.GetInput("file").Get().resolvedPath,
                "scale": input_value(shader, "scale"),
                "bias": input_value(shader, "bias"),
                "sourceColorSpace": input_value(shader, "sourceColorSpace"),
                "coordinates": coordinates(shader),
            }
    elif prim.IsA(UsdSkel.Skeleton):
        skel = UsdSkel.Skeleton(prim)
        query = UsdSkel.Cache().GetSkelQuery(skel)
        anim = query.GetAnimQuery()
        out["skeleton"] = {
            "joints": len(skel.GetJointsAttr().Get()),
            "valid": bool(query),
            "animation_times": len(anim.GetJointTransformTimeSamples()) if anim else 0,
            "blend_shape_order": list(anim.GetBlendShapeOrder()) if anim else [],
            "blend_weights": {
                str(t): list(anim.GetPrim().GetAttribute("blendShapeWeights").Get(t))
                for t in anim.GetPrim().GetAttribute("blendShapeWeights").GetTimeSamples()
            } if anim else {},
        }
print(json.dumps(out))
