"""drawn_facts.py: what a viewer draws of each USD root layer, per usd-core (pip usd-core),
for hearth's import tests: triangles after fan triangulation with PointInstancer instances
expanded (a prototype's meshes count once per instance and never on their own; implicit
gprims are not counted), the first skeleton's joints, the distinct materials bound to drawn
geometry, and the drawn meshes' bounds in hearth's space (Y up, metres) for layers without
instancers or skins. Written for hearth's tests; usd_facts.py is the corpus' own fact sheet.
Usage: python3 drawn_facts.py <root layers...>   (one JSON line per layer)"""
import json, sys
from pxr import Usd, UsdGeom, UsdShade, UsdSkel, Gf

def under(path, roots):
    return any(path.HasPrefix(r) for r in roots)

def facts(path):
    stage = Usd.Stage.Open(path)
    t = Usd.TimeCode.EarliestTime()
    prims = list(stage.Traverse(Usd.TraverseInstanceProxies()))
    instancers = [p for p in prims if p.IsA(UsdGeom.PointInstancer)]
    inst_paths = [p.GetPath() for p in instancers]
    meters = UsdGeom.GetStageMetersPerUnit(stage)
    z_up = UsdGeom.GetStageUpAxis(stage) == "Z"
    tris, meshes, mats, joints = 0, 0, set(), 0
    lo, hi = [float("inf")] * 3, [float("-inf")] * 3
    skinned = False
    cache = UsdGeom.XformCache(t)
    def mesh_tris(prim):
        fvc = UsdGeom.Mesh(prim).GetFaceVertexCountsAttr().Get(t) or []
        return sum(max(c - 2, 0) for c in fvc)
    def bind(prim):
        for g in [prim] + [s.GetPrim() for s in UsdGeom.Subset.GetAllGeomSubsets(UsdGeom.Mesh(prim))]:
            m, _ = UsdShade.MaterialBindingAPI(g).ComputeBoundMaterial()
            if m: mats.add(str(m.GetPath()))
    for prim in prims:
        if prim.IsA(UsdSkel.Skeleton) and joints == 0:
            joints = len(UsdSkel.Skeleton(prim).GetJointsAttr().Get() or [])
        if not prim.IsA(UsdGeom.Mesh) or under(prim.GetPath(), inst_paths):
            continue
        meshes += 1; tris += mesh_tris(prim); bind(prim)
        if prim.HasAPI(UsdSkel.BindingAPI): skinned = True
        m = cache.GetLocalToWorldTransform(prim)
        for p in UsdGeom.Mesh(prim).GetPointsAttr().Get(t) or []:
            w = m.Transform(Gf.Vec3d(p))
            w = (w[0], w[2], -w[1]) if z_up else (w[0], w[1], w[2])
            for i in range(3):
                lo[i] = min(lo[i], w[i] * meters); hi[i] = max(hi[i], w[i] * meters)
    for inst in instancers:
        pi = UsdGeom.PointInstancer(inst)
        protos = pi.GetPrototypesRel().GetTargets()
        invisible = set(pi.GetInvisibleIdsAttr().Get(t) or [])
        for i, proto in enumerate(pi.GetProtoIndicesAttr().Get(t) or []):
            if i in invisible: continue
            for sub in Usd.PrimRange(stage.GetPrimAtPath(protos[proto])):
                if sub.IsA(UsdGeom.Mesh):
                    meshes += 1; tris += mesh_tris(sub); bind(sub)
    r = {"file": path, "triangles": tris, "meshes": meshes, "joints": joints, "materials": len(mats)}
    r["skinned_rest_bounds"] = skinned_rest_bounds(stage, t, meters, z_up) if skinned else None
    r["bounds"] = None if instancers or skinned or meshes == 0 else [lo, hi]
    return r

def skinned_rest_bounds(stage, t, meters, z_up):
    """The skinned meshes' points posed by their skeleton's rest transforms, in hearth's space."""
    cache = UsdSkel.Cache()
    lo, hi = [float("inf")] * 3, [float("-inf")] * 3
    xforms = UsdGeom.XformCache(t)
    for prim in stage.Traverse():
        if not prim.IsA(UsdSkel.Root):
            continue
        root = UsdSkel.Root(prim)
        cache.Populate(root, Usd.PrimDefaultPredicate)
        for binding in cache.ComputeSkelBindings(root, Usd.PrimDefaultPredicate):
            skel = binding.GetSkeleton()
            query = cache.GetSkelQuery(skel)
            rest = query.ComputeJointSkelTransforms(t, True)
            bind = skel.GetBindTransformsAttr().Get()
            skinning = [bind[i].GetInverse() * rest[i] for i in range(len(bind))]
            to_world = xforms.GetLocalToWorldTransform(skel.GetPrim())
            for target in binding.GetSkinningTargets():
                points = UsdGeom.Mesh(target.GetPrim()).GetPointsAttr().Get(t)
                from pxr import Vt
                points = Vt.Vec3fArray(points)
                target.ComputeSkinnedPoints(Vt.Matrix4dArray(skinning), points, t)
                for p in points:
                    w = to_world.Transform(Gf.Vec3d(p))
                    w = (w[0], w[2], -w[1]) if z_up else (w[0], w[1], w[2])
                    for i in range(3):
                        lo[i] = min(lo[i], w[i] * meters); hi[i] = max(hi[i], w[i] * meters)
    return [lo, hi] if lo[0] != float("inf") else None

if __name__ == "__main__":
    for p in sys.argv[1:]:
        print(json.dumps(facts(p)))
