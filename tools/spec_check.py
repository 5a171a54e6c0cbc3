#!/usr/bin/env python3
"""Independent checker of a hearth output folder against the format specs.

    python3 tools/spec_check.py OUT_DIR

Written from the specification text only -- assetc's format description (.hmesh v2, .hmat v1,
.hanim v1, .hman v1, .hpack v2) and the "Formats" section of hearth's README (struct layouts
the spec leaves open, the asset kind table, .hpack v3 and v4) -- not from hearth's Rust
reader, so that it is a second implementation. Standard library only.

Every file under OUT_DIR is validated by extension (.hman, .hmesh, .hmat, .hanim, .hfont,
.hscene, .hpack, .ktx2), with cross-file checks (manifest rows vs files, .hmat vs its .hmesh, .hanim vs the
skeleton, pack entries vs the tree). One line per problem (`path: what`), then
`spec_check: N files checked, M problems`; exit status 1 on any problem, 2 on usage errors.

Not checked (no standard-library way): xxh3 checksums of .hpack v3/v4, and decompression of
zstd / snappy / brotli entries (their codec, sizes and frame headers are checked instead).
"""

import math
import os
import struct
import sys

# --------------------------------------------------------------------------------------------
# Shared definitions
# --------------------------------------------------------------------------------------------

FNV_OFFSET = 0xCBF29CE484222325
FNV_PRIME = 0x100000001B3
MASK64 = (1 << 64) - 1
NO_MATERIAL = 0xFFFFFFFF
ROOT_DIR = 0xFFFFFFFF
KTX2_IDENTIFIER = b"\xabKTX 20\xbb\r\n\x1a\n"
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
SNAPPY_STREAM_ID = b"\xff\x06\x00\x00sNaPpY"

# The asset kind table (README "Asset kinds"): assets.hman rows and .hpack v4 entries.
MAN_TEXTURE, MAN_MESH, MAN_MATERIAL, MAN_LUT = 0, 1, 2, 3
MAN_SHADER, MAN_BLOB, MAN_ANIMATION, MAN_FONT = 4, 5, 6, 7
MAN_MANIFEST = 8  # assets.hman itself, as a pack entry; never a manifest row
MAN_SCENE = 9
MAN_NAMES = 10  # assets.hnames, as a pack entry; never a manifest row
FIRST_GAME_KIND = 128  # 128..255 are the game's kinds; any value is valid

# .hpack v2/v3 kinds (assetc spec, PackKind), from the path's extension.
PACK_KINDS = {".hmesh": 1, ".hmat": 2, ".hman": 3, ".hanim": 4, ".ktx2": 5, ".spv": 6}

# Files the v3 packer stores as they are (README, "Compression").
ALREADY_COMPRESSED = {".png", ".jpg", ".jpeg", ".webp", ".ogg", ".mp3", ".opus", ".flac",
                      ".zip", ".gz", ".zst", ".br", ".basis"}

# .hmesh chunk order the README documents (SKIN/SKEL are not in that list).
CHUNK_ORDER = [b"DESC", b"BNDS", b"VTXS", b"IDXS", b"MLET", b"MLVR", b"MLTR", b"MLBN",
               b"MTRL", b"SUBM", b"LODI", b"LODT"]


def fnv1a64(data):
    h = FNV_OFFSET
    for b in data:
        h = ((h ^ b) * FNV_PRIME) & MASK64
    return h


def canonical_ref(path):
    """A runtime path's canonical ref: `.ktx2` dropped, everything else kept."""
    return path[:-5] if path.endswith(".ktx2") else path


def hash_ref(ref):
    """FNV-1a 64 over the UTF-8 bytes with ASCII A-Z lowercased (bytes.lower is ASCII-only)."""
    return fnv1a64(ref.encode("utf-8").lower())


def hash_runtime_path(path):
    return hash_ref(canonical_ref(path))


def align16(n):
    return (n + 15) & ~15


def ext_of(path):
    name = path.rsplit("/", 1)[-1]
    dot = name.rfind(".")
    return name[dot:].lower() if dot > 0 else ""


def man_kind_for(path):
    lower = path.lower()
    ext = ext_of(path)
    if ext == ".ktx2":
        return MAN_LUT if lower.endswith(".lut.ktx2") else MAN_TEXTURE
    if ext == ".hmesh":
        return MAN_MESH
    if ext == ".hmat":
        return MAN_MATERIAL
    if ext == ".hanim":
        return MAN_ANIMATION
    if ext in (".spv", ".wgsl", ".glsl", ".hlsl"):
        return MAN_SHADER
    if ext in (".ttf", ".otf", ".fnt", ".hfont"):
        return MAN_FONT
    if ext == ".hscene":
        return MAN_SCENE
    return MAN_BLOB


def valid_relative_path(path):
    """Forward-slash, relative, no empty / `.` / `..` components, no backslash."""
    if not path or path.startswith("/") or "\\" in path:
        return False
    return all(part not in ("", ".", "..") for part in path.split("/"))


def finite(*values):
    return all(math.isfinite(v) for v in values)


def fmt(v):
    return "%.9g" % v


class Bad(Exception):
    """A file too damaged to read on: reported once, the rest of that file skipped."""


class Reader:
    def __init__(self, data, pos=0):
        self.data = data
        self.pos = pos

    def take(self, fmt_, size):
        if self.pos + size > len(self.data):
            raise Bad("truncated: need %d bytes at offset %d, file has %d"
                      % (size, self.pos, len(self.data)))
        values = struct.unpack_from(fmt_, self.data, self.pos)
        self.pos += size
        return values

    def u8(self):
        return self.take("<B", 1)[0]

    def u16(self):
        return self.take("<H", 2)[0]

    def u32(self):
        return self.take("<I", 4)[0]

    def f32(self):
        return self.take("<f", 4)[0]

    def raw(self, n):
        if self.pos + n > len(self.data):
            raise Bad("truncated: need %d bytes at offset %d, file has %d"
                      % (n, self.pos, len(self.data)))
        out = self.data[self.pos:self.pos + n]
        self.pos += n
        return out


def octahedral_decode(qx, qy):
    x = max(qx / 32767.0, -1.0)
    y = max(qy / 32767.0, -1.0)
    z = 1.0 - abs(x) - abs(y)
    if z < 0.0:
        x, y = ((1.0 - abs(y)) * (1.0 if x >= 0.0 else -1.0),
                (1.0 - abs(x)) * (1.0 if y >= 0.0 else -1.0))
    length = math.sqrt(x * x + y * y + z * z)
    if length == 0.0 or not math.isfinite(length):
        return None
    return (x / length, y / length, z / length)


def canon_tri(a, b, c):
    """Rotation-normalized triangle (winding kept)."""
    return min((a, b, c), (b, c, a), (c, a, b))


# --------------------------------------------------------------------------------------------
# The checker
# --------------------------------------------------------------------------------------------


class Checker:
    def __init__(self, out_dir):
        self.out = out_dir
        self.problems = []
        self.checked = 0
        self.files = []  # every regular file, relative, '/'-separated
        self.meshes = {}  # rel -> summary dict or None (unreadable)
        self.manifests = {}  # root dir rel -> {hash: (kind, colorspace, path)} or None
        self.texture_uses = {}  # (root, hash) -> set of "srgb"/"linear" slot classes

    # -- helpers ---------------------------------------------------------------------------

    def problem(self, rel, what):
        self.problems.append("%s: %s" % (rel, what))

    def abspath(self, rel):
        return os.path.join(self.out, *rel.split("/")) if rel else self.out

    def read(self, rel):
        with open(self.abspath(rel), "rb") as f:
            return f.read()

    def walk(self):
        for dirpath, dirnames, filenames in os.walk(self.out):
            dirnames.sort()
            rel_dir = os.path.relpath(dirpath, self.out)
            rel_dir = "" if rel_dir == "." else rel_dir.replace(os.sep, "/")
            for name in sorted(filenames):
                rel = name if not rel_dir else rel_dir + "/" + name
                if os.path.isfile(os.path.join(dirpath, name)):
                    self.files.append(rel)

    @staticmethod
    def hidden(rel):
        return any(part.startswith(".") for part in rel.split("/"))

    def roots(self):
        """Folders holding an assets.hman or a .hpack: each is a runtime root."""
        out = set()
        for rel in self.files:
            if self.hidden(rel):
                continue
            name = rel.rsplit("/", 1)[-1]
            if name == "assets.hman" or ext_of(rel) == ".hpack":
                out.add(rel.rsplit("/", 1)[0] if "/" in rel else "")
        return out

    @staticmethod
    def ancestors(rel):
        parts = rel.split("/")[:-1]
        for i in range(len(parts), -1, -1):
            yield "/".join(parts[:i])

    def owner_root(self, rel, roots):
        for d in self.ancestors(rel):
            if d in roots:
                return d
        return None

    @staticmethod
    def under(root, rel):
        """`rel` relative to `root`."""
        return rel[len(root) + 1:] if root else rel

    @staticmethod
    def join(root, rel):
        return root + "/" + rel if root else rel

    def tree(self, root, roots):
        """Files a pack at `root` must hold: every non-hidden, non-.hpack file it owns."""
        return {self.under(root, rel) for rel in self.files
                if not self.hidden(rel) and ext_of(rel) != ".hpack"
                and self.owner_root(rel, roots) == root}

    # -- driver ----------------------------------------------------------------------------

    def run(self):
        if fnv1a64(b"court/tex_0") != 0xAD44C4A2970495B9:
            self.problem("spec_check.py", "FNV-1a self-test failed")
        self.walk()
        roots = self.roots()
        order = [".hman", ".hnames", ".hmesh", ".hmat", ".hanim", ".hfont", ".hscene", ".ktx2",
                 ".hpack"]
        for ext in order:
            for rel in self.files:
                if self.hidden(rel) or ext_of(rel) != ext:
                    continue
                self.checked += 1
                try:
                    if ext == ".hman":
                        self.check_hman(rel, roots)
                    elif ext == ".hnames":
                        self.check_hnames(rel)
                    elif ext == ".hmesh":
                        self.mesh(rel)
                    elif ext == ".hmat":
                        self.check_hmat(rel, roots)
                    elif ext == ".hanim":
                        self.check_hanim(rel)
                    elif ext == ".hfont":
                        self.check_hfont(rel, roots)
                    elif ext == ".hscene":
                        self.check_hscene(rel, roots)
                    elif ext == ".ktx2":
                        self.check_ktx2(rel)
                    elif ext == ".hpack":
                        self.check_hpack(rel, roots)
                except Bad as e:
                    self.problem(rel, str(e))
                except Exception as e:  # a checker bug must not hide the other files
                    self.problem(rel, "checker error: %s: %s" % (type(e).__name__, e))
        self.check_colorspaces()

    # -- .hman -----------------------------------------------------------------------------

    def manifest(self, root):
        """The root's assets.hman rows, parsed (problems reported by check_hman)."""
        if root not in self.manifests:
            self.manifests[root] = None
            rel = self.join(root, "assets.hman")
            if rel in self.files:
                try:
                    self.manifests[root] = self.parse_hman(rel, self.read(rel), root, False)
                except Bad:
                    pass
        return self.manifests[root]

    def parse_hman(self, rel, data, root, report):
        def bad(what):
            if report:
                self.problem(rel, what)

        r = Reader(data)
        magic, version, count, reserved = r.take("<4sIII", 16)
        if magic != b"HMAN":
            raise Bad("magic %r, expected b'HMAN'" % magic)
        if version != 1:
            raise Bad("version %d, expected 1" % version)
        if reserved != 0:
            bad("header reserved = %d, expected 0" % reserved)
        rows = {}
        prev = None
        for i in range(count):
            h, kind, cs, n = r.take("<QBBH", 12)
            raw = r.raw(n)
            try:
                path = raw.decode("utf-8")
            except UnicodeDecodeError:
                bad("entry %d: path is not UTF-8: %r" % (i, raw))
                path = raw.decode("utf-8", "replace")
            if prev is not None and h <= prev:
                bad("entry %d: hash %016x %s %016x of the entry before (must ascend, unique)"
                    % (i, h, "equals" if h == prev else "is below", prev))
            prev = h
            if kind == MAN_MANIFEST:
                bad("entry %d (%s): kind 8 (manifest) is for pack entries, not manifest rows"
                    % (i, path))
            if cs not in (0, 1):
                bad("entry %d (%s): colorspace %d, expected 0 or 1" % (i, path, cs))
            if not valid_relative_path(path):
                bad("entry %d: path %r is not a relative forward-slash path" % (i, path))
            rows[h] = (kind, cs, path)
        if r.pos != len(data):
            bad("%d trailing bytes after %d entries" % (len(data) - r.pos, count))
        return rows

    def check_hman(self, rel, roots):
        root = rel.rsplit("/", 1)[0] if "/" in rel else ""
        data = self.read(rel)
        rows = self.parse_hman(rel, data, root, True)
        if rel.rsplit("/", 1)[-1] == "assets.hman":
            self.manifests[root] = rows
        paths = {}
        for h, (kind, cs, path) in sorted(rows.items()):
            target = self.join(root, path)
            if not os.path.isfile(self.abspath(target)):
                self.problem(rel, "entry %016x: file %s does not exist" % (h, path))
            want = hash_runtime_path(path)
            if want != h:
                self.problem(rel, "entry %s: hash %016x, FNV-1a of %r is %016x"
                             % (path, h, canonical_ref(path).lower(), want))
            expected_kind = man_kind_for(path)
            # Game kinds (128..255) are the game's to choose; hearth's follow the extension.
            if kind < FIRST_GAME_KIND and kind != expected_kind:
                self.problem(rel, "entry %s: kind %d, expected %d for its extension"
                             % (path, kind, expected_kind))
            if path in paths:
                self.problem(rel, "path %s listed twice" % path)
            paths[path] = h
        if rel.rsplit("/", 1)[-1] != "assets.hman":
            return
        listed = set(paths)
        tree = self.tree(root, roots) - {"assets.hman", "assets.hnames"}
        for missing in sorted(tree - listed):
            self.problem(rel, "file %s is not listed" % missing)

    # -- assets.hnames ---------------------------------------------------------------------

    def check_hnames(self, rel):
        """assets.hnames v1 (README/guide "Asset names"): header, 40-byte rows sorted by
        (name bytes, kind) strictly ascending, each row's strings in the pool, its 8-byte name
        prefix, zero reserved bytes, and its (hash, path) an assets.hman row of its root."""
        root = rel.rsplit("/", 1)[0] if "/" in rel else ""
        data = self.read(rel)
        if len(data) < 16 or data[:4] != b"HNAM":
            raise Bad("not a name table (magic)")
        version, count, pool_size = struct.unpack_from("<III", data, 4)
        if version != 1:
            raise Bad("version %d, expected 1" % version)
        pool_at = 16 + 40 * count
        if pool_at + pool_size != len(data):
            raise Bad("length %d, header says %d" % (len(data), pool_at + pool_size))
        pool = data[pool_at:]
        manifest = self.manifest(root) or {}
        previous = None
        for i in range(count):
            at = 16 + 40 * i
            h, = struct.unpack_from("<Q", data, at)
            prefix = data[at + 8:at + 16]
            name_off, path_off, sub, name_len, path_len = struct.unpack_from("<IIIHH", data, at + 16)
            kind = data[at + 32]
            if any(data[at + 33:at + 40]):
                self.problem(rel, "row %d: reserved bytes not zero" % i)
            if name_off + name_len > pool_size or path_off + path_len > pool_size:
                raise Bad("row %d: a string runs past the pool" % i)
            name = pool[name_off:name_off + name_len]
            path = pool[path_off:path_off + path_len].decode("utf-8", "replace")
            if not name or b"\0" in name:
                self.problem(rel, "row %d: empty name or a NUL byte in it" % i)
            if prefix != name[:8].ljust(8, b"\0"):
                self.problem(rel, "row %d: prefix does not match the name" % i)
            key = (name, kind)
            if previous is not None and key <= previous:
                self.problem(rel, "row %d (%s): rows must ascend by (name, kind)"
                             % (i, name.decode("utf-8", "replace")))
            previous = key
            row = manifest.get(h)
            if row is None or row[2] != path or hash_runtime_path(path) != h:
                self.problem(rel, "row %d (%s): %s %016x is not an assets.hman row"
                             % (i, name.decode("utf-8", "replace"), path, h))
            del sub  # any value: a row or clip index, or 0xFFFFFFFF for the whole file

    # -- .hmesh ----------------------------------------------------------------------------

    def mesh(self, rel):
        """Checks a .hmesh once; returns its summary (or None when unreadable)."""
        if rel not in self.meshes:
            self.meshes[rel] = None
            try:
                self.meshes[rel] = self.check_hmesh(rel, self.read(rel))
            except Bad as e:
                self.problem(rel, str(e))
        return self.meshes[rel]

    def check_hmesh(self, rel, data):
        P = lambda what: self.problem(rel, what)
        size = len(data)
        if size < 32:
            raise Bad("%d bytes, shorter than the 32-byte header" % size)
        magic, version, chunk_count, flags, res1, res2 = struct.unpack_from("<4sIIIQQ", data, 0)
        if magic != b"HMSH":
            raise Bad("magic %r, expected b'HMSH'" % magic)
        if version != 2:
            raise Bad("version %d, expected 2" % version)
        if flags != 0 or res1 != 0 or res2 != 0:
            P("header reserved fields not zero (flags %d, reserved %d, %d)" % (flags, res1, res2))
        table_end = 32 + 24 * chunk_count
        if table_end > size:
            raise Bad("chunk table (%d entries) ends at %d, past the file end %d"
                      % (chunk_count, table_end, size))
        chunks = {}
        spans = []
        for i in range(chunk_count):
            fourcc, cflags, off, csize = struct.unpack_from("<4sIQQ", data, 32 + 24 * i)
            name = fourcc.decode("latin-1")
            if off % 16 != 0:
                P("chunk %s: offset %d is not 16-aligned" % (name, off))
            if off < table_end or off + csize > size:
                P("chunk %s: range [%d, %d) outside the payload area [%d, %d)"
                  % (name, off, off + csize, table_end, size))
                continue
            if fourcc in chunks:
                P("chunk %s appears twice" % name)
                continue
            chunks[fourcc] = (off, csize)
            spans.append((off, csize, name))
        # Layout: sorted payloads, each at the next 16-aligned offset, zero padding, end padded.
        spans.sort()
        cursor = table_end
        for off, csize, name in spans:
            if off < cursor:
                P("chunk %s at %d overlaps the previous chunk or table (ends at %d)"
                  % (name, off, cursor))
            elif off != align16(cursor):
                P("chunk %s at %d, expected the next 16-aligned offset %d"
                  % (name, off, align16(cursor)))
            if off > cursor and any(data[cursor:off]):
                P("non-zero padding before chunk %s" % name)
            cursor = max(cursor, off + csize)
        if size != align16(cursor):
            P("file is %d bytes, expected %d (last chunk end padded to 16)"
              % (size, align16(cursor)))
        elif any(data[cursor:]):
            P("non-zero padding at the end of the file")
        known = [c for _, _, c in spans if c.encode("latin-1") in CHUNK_ORDER]
        ranked = sorted(known, key=lambda c: CHUNK_ORDER.index(c.encode("latin-1")))
        if known != ranked:
            P("chunk order %s, README documents %s" % (" ".join(known), " ".join(ranked)))

        def chunk(tag):
            if tag not in chunks:
                return None
            off, csize = chunks[tag]
            return data[off:off + csize]

        # DESC is the source of truth.
        desc = chunk(b"DESC")
        if desc is None:
            raise Bad("no DESC chunk")
        if len(desc) != 32:
            raise Bad("DESC is %d bytes, expected 32" % len(desc))
        (vcount, icount, mcount, scount, matcount, stride, iwidth, dflags, max_verts,
         max_tris) = struct.unpack("<IIIIIHBBII", desc)
        if stride != 28:
            P("DESC.vertexStride %d, expected 28" % stride)
        if iwidth not in (2, 4):
            raise Bad("DESC.indexWidth %d, expected 2 or 4" % iwidth)
        if iwidth == 4 and vcount <= 65535:
            P("DESC.indexWidth 4 with %d vertices (2 allowed)" % vcount)
        if iwidth == 2 and vcount > 65536:
            P("DESC.indexWidth 2 with %d vertices" % vcount)
        if dflags & ~1:
            P("DESC.flags %#x: bits other than 0 (has tangents) set" % dflags)
        if icount % 3 != 0:
            P("DESC.indexCount %d is not a multiple of 3" % icount)
        if max_verts == 0 or max_verts > 256 or max_tris == 0:
            P("DESC meshlet limits %d vertices / %d triangles out of range"
              % (max_verts, max_tris))

        expected = {
            b"BNDS": 40,
            b"VTXS": vcount * 28,
            b"IDXS": icount * iwidth,
            b"MLET": mcount * 16,
            b"MLBN": mcount * 32,
            b"MTRL": matcount * 8,
            b"SUBM": scount * 64,
        }
        for tag, want in expected.items():
            got = chunks.get(tag)
            if got is None:
                if want != 0 or tag in (b"BNDS", b"VTXS", b"IDXS", b"SUBM"):
                    P("no %s chunk (DESC implies %d bytes)" % (tag.decode(), want))
            elif got[1] != want:
                P("%s is %d bytes, DESC implies %d" % (tag.decode(), got[1], want))
        for tag in (b"BNDS", b"VTXS", b"IDXS", b"MLET", b"MLBN", b"MTRL", b"SUBM"):
            if tag in chunks and chunks[tag][1] != expected[tag]:
                raise Bad("cannot read on: %s does not match DESC" % tag.decode())
        if mcount and (b"MLVR" not in chunks or b"MLTR" not in chunks):
            raise Bad("meshlets without MLVR/MLTR chunks")

        # BNDS
        bnds = chunk(b"BNDS")
        bounds = struct.unpack("<10f", bnds) if bnds is not None else None
        if bounds is not None:
            self.check_bounds(P, "BNDS", bounds)

        # VTXS
        vtxs = chunk(b"VTXS") or b""
        positions = []
        bad_normals = bad_tangents = bad_values = 0
        first_bad = None
        for i, vertex in enumerate(struct.iter_unpack("<3f2h2h2f", vtxs)):
            px, py, pz, nx, ny, tx, ty, u, v = vertex
            positions.append((px, py, pz))
            if not finite(px, py, pz, u, v):
                bad_values += 1
                first_bad = first_bad or "vertex %d: position/uv not finite" % i
            n = octahedral_decode(nx, ny)
            if n is None or abs(math.sqrt(n[0] ** 2 + n[1] ** 2 + n[2] ** 2) - 1.0) > 1e-3 \
                    or nx == -32768 or ny == -32768:
                bad_normals += 1
                first_bad = first_bad or (
                    "vertex %d: normal (%d, %d) is not a unit octahedral code" % (i, nx, ny))
            t = octahedral_decode(tx & ~1, ty)
            if t is None:
                bad_tangents += 1
                first_bad = first_bad or "vertex %d: tangent (%d, %d) does not decode" % (i, tx, ty)
        if bad_values or bad_normals or bad_tangents:
            P("VTXS: %d non-finite, %d bad normals, %d bad tangents (first: %s)"
              % (bad_values, bad_normals, bad_tangents, first_bad))
        if bounds is not None and positions:
            outside = self.outside(positions, bounds)
            if outside:
                P("BNDS: %d vertices outside the AABB or sphere (first: vertex %d at %s)"
                  % (len(outside), outside[0], positions[outside[0]]))

        # IDXS
        idxs = chunk(b"IDXS") or b""
        indices = struct.unpack("<%d%s" % (len(idxs) // iwidth, "H" if iwidth == 2 else "I"), idxs)
        out_of_range = [i for i, x in enumerate(indices) if x >= vcount]
        if out_of_range:
            P("IDXS: %d indices >= vertexCount %d (first: [%d] = %d)"
              % (len(out_of_range), vcount, out_of_range[0], indices[out_of_range[0]]))

        # Meshlets
        mlvr_raw = chunk(b"MLVR") or b""
        mltr = chunk(b"MLTR") or b""
        if len(mlvr_raw) % 4:
            P("MLVR is %d bytes, not a multiple of 4" % len(mlvr_raw))
        if len(mltr) % 3:
            P("MLTR is %d bytes, not a multiple of 3" % len(mltr))
        mlvr = struct.unpack("<%dI" % (len(mlvr_raw) // 4), mlvr_raw[:len(mlvr_raw) // 4 * 4])
        bad_mlvr = [i for i, x in enumerate(mlvr) if x >= vcount]
        if bad_mlvr:
            P("MLVR: %d entries >= vertexCount %d (first: [%d] = %d)"
              % (len(bad_mlvr), vcount, bad_mlvr[0], mlvr[bad_mlvr[0]]))
        mlet = list(struct.iter_unpack("<4I", chunk(b"MLET") or b""))
        mlbn = list(struct.iter_unpack("<8f", chunk(b"MLBN") or b""))
        meshlet_tris = []  # per meshlet: list of global triangles, or None when unreadable
        total_tris = 0
        for m, (vo, vc, to, tc) in enumerate(mlet):
            total_tris += tc
            if vo + vc > len(mlvr) or to + tc > len(mltr) // 3:
                P("meshlet %d: vertices [%d, %d) / triangles [%d, %d) outside MLVR (%d) / MLTR (%d)"
                  % (m, vo, vo + vc, to, to + tc, len(mlvr), len(mltr) // 3))
                meshlet_tris.append(None)
                continue
            if vc > max_verts or tc > max_tris or vc == 0 or tc == 0:
                P("meshlet %d: %d vertices / %d triangles, DESC limits %d / %d"
                  % (m, vc, tc, max_verts, max_tris))
            local = mltr[to * 3:(to + tc) * 3]
            if local and max(local) >= vc:
                P("meshlet %d: local triangle index %d >= its vertexCount %d"
                  % (m, max(local), vc))
                meshlet_tris.append(None)
                continue
            verts = mlvr[vo:vo + vc]
            tris = [(verts[local[k]], verts[local[k + 1]], verts[local[k + 2]])
                    for k in range(0, len(local), 3)]
            meshlet_tris.append(tris)
            if m < len(mlbn) and all(x < vcount for x in verts):
                cx, cy, cz, r, ax, ay, az, cutoff = mlbn[m]
                if not finite(cx, cy, cz, r, ax, ay, az, cutoff) or r < 0:
                    P("MLBN %d: non-finite or negative values" % m)
                    continue
                if not -1.0 <= cutoff <= 1.0:
                    P("MLBN %d: coneCutoff %s outside [-1, 1]" % (m, fmt(cutoff)))
                eps = 1e-4 * max(1.0, r)
                for g in verts:
                    p = positions[g]
                    d = math.sqrt((p[0] - cx) ** 2 + (p[1] - cy) ** 2 + (p[2] - cz) ** 2)
                    if d > r + eps:
                        P("MLBN %d: vertex %d at distance %s outside radius %s"
                          % (m, g, fmt(d), fmt(r)))
                        break
        if total_tris * 3 != len(mltr):
            P("MLTR holds %d triangles, the meshlets use %d (MLTR is dense)"
              % (len(mltr) // 3, total_tris))

        # MTRL
        mtrl = struct.unpack("<%dQ" % matcount, chunk(b"MTRL") or b"") if b"MTRL" in chunks else ()
        if len(set(mtrl)) != len(mtrl):
            P("MTRL has duplicate material hashes")

        # SUBM
        subm = chunk(b"SUBM") or b""
        used_meshlets = [0] * len(mlet)
        first_use = []
        for s in range(scount):
            fields = struct.unpack_from("<6I10f", subm, s * 64)
            fi, ic, fm, mc, slot, base = fields[:6]
            sb = fields[6:]
            tag = "submesh %d" % s
            self.check_bounds(P, tag + " bounds", sb)
            if base != 0:
                P("%s: baseVertex %d, expected 0" % (tag, base))
            if ic % 3 or fi % 3:
                P("%s: index range [%d, +%d) not made of whole triangles" % (tag, fi, ic))
            if fi + ic > len(indices):
                P("%s: indices [%d, %d) outside IDXS (%d)" % (tag, fi, fi + ic, len(indices)))
                continue
            if fm + mc > len(mlet):
                P("%s: meshlets [%d, %d) outside MLET (%d)" % (tag, fm, fm + mc, len(mlet)))
                continue
            if slot != NO_MATERIAL:
                if slot >= matcount:
                    P("%s: materialSlot %d >= materialCount %d" % (tag, slot, matcount))
                elif slot not in first_use:
                    first_use.append(slot)
            for m in range(fm, fm + mc):
                used_meshlets[m] += 1
            verts = {x for x in indices[fi:fi + ic] if x < vcount}
            outside = self.outside([positions[x] for x in sorted(verts)], sb) \
                if len(positions) == vcount else []
            if outside:
                P("%s: %d of its vertices outside its AABB or sphere" % (tag, len(outside)))
            want = sorted(canon_tri(indices[k], indices[k + 1], indices[k + 2])
                          for k in range(fi, fi + ic - 2, 3))
            got = []
            readable = True
            for m in range(fm, fm + mc):
                if meshlet_tris[m] is None:
                    readable = False
                    break
                got.extend(canon_tri(*t) for t in meshlet_tris[m])
            if readable:
                got.sort()
                if got != want:
                    missing, extra = self.multiset_diff(want, got)
                    P("%s: meshlets do not cover its triangles exactly once "
                      "(%d triangles, meshlets give %d; %d missing, %d extra)"
                      % (tag, len(want), len(got), missing, extra))
        if first_use != sorted(first_use):
            P("SUBM: material slots first used in order %s, expected dense first-use order"
              % first_use[:10])
        unused = [m for m, n in enumerate(used_meshlets) if n == 0]
        shared = [m for m, n in enumerate(used_meshlets) if n > 1]
        if unused:
            P("%d meshlets belong to no submesh (first: %d)" % (len(unused), unused[0]))
        if shared:
            P("%d meshlets belong to several submeshes (first: %d)" % (len(shared), shared[0]))
        if matcount and sorted(first_use) != list(range(matcount)):
            P("MTRL: %d materials, submeshes use slots %s (MTRL holds only used materials)"
              % (matcount, sorted(first_use)[:10]))

        # SKIN + SKEL
        joint_count = None
        skel = chunk(b"SKEL")
        skin = chunk(b"SKIN")
        if (skel is None) != (skin is None):
            P("SKIN and SKEL must come together (SKIN %s, SKEL %s)"
              % ("present" if skin is not None else "absent",
                 "present" if skel is not None else "absent"))
        if skel is not None:
            if len(skel) % 112:
                P("SKEL is %d bytes, not a multiple of 112" % len(skel))
            joints = list(struct.iter_unpack("<16f3f4f3fiI", skel[:len(skel) // 112 * 112]))
            joint_count = len(joints)
            if joint_count == 0:
                P("SKEL has no joints")
            for j, joint in enumerate(joints):
                parent, pad = joint[26], joint[27]
                if not finite(*joint[:26]):
                    P("SKEL joint %d: non-finite values" % j)
                if parent != -1 and not (0 <= parent < joint_count and parent != j):
                    P("SKEL joint %d: parent %d, expected -1 or another joint index" % (j, parent))
                if pad != 0:
                    P("SKEL joint %d: padding %d, expected 0" % (j, pad))
            # No cycles in the parent chains.
            for j in range(joint_count):
                seen = set()
                k = j
                while k != -1 and 0 <= k < joint_count and k not in seen:
                    seen.add(k)
                    k = joints[k][26]
                if k != -1 and k in seen:
                    P("SKEL joint %d: parent chain has a cycle" % j)
                    break
        if skin is not None:
            if len(skin) != vcount * 24:
                P("SKIN is %d bytes, DESC implies %d" % (len(skin), vcount * 24))
            else:
                bad_sum = bad_joint = 0
                first = None
                for i, sv in enumerate(struct.iter_unpack("<4H4f", skin)):
                    j0, j1, j2, j3, w0, w1, w2, w3 = sv
                    total = w0 + w1 + w2 + w3
                    if (not finite(w0, w1, w2, w3) or min(w0, w1, w2, w3) < 0
                            or abs(total - 1.0) > 1e-4):
                        bad_sum += 1
                        first = first or "vertex %d weights %s sum %s" % (
                            i, [fmt(w) for w in (w0, w1, w2, w3)], fmt(total))
                    if joint_count is not None and max(j0, j1, j2, j3) >= joint_count:
                        bad_joint += 1
                        first = first or "vertex %d joints %s, %d joints" % (
                            i, (j0, j1, j2, j3), joint_count)
                if bad_sum or bad_joint:
                    P("SKIN: %d vertices with weights not summing to 1, %d with joints out of "
                      "range (first: %s)" % (bad_sum, bad_joint, first))

        # LODI + LODT
        lodi = chunk(b"LODI")
        lodt = chunk(b"LODT")
        if (lodi is None) != (lodt is None):
            P("LODI and LODT must come together")
        if lodt is not None:
            if len(lodt) < 8:
                P("LODT is %d bytes, shorter than its header" % len(lodt))
            else:
                lod_count, lod_subs = struct.unpack_from("<II", lodt, 0)
                if lod_subs != scount:
                    P("LODT.submeshCount %d, DESC.submeshCount %d" % (lod_subs, scount))
                if len(lodt) != 8 + lod_count * scount * 8:
                    P("LODT is %d bytes, expected 8 + %d lods x %d submeshes x 8 = %d"
                      % (len(lodt), lod_count, scount, 8 + lod_count * scount * 8))
                else:
                    lod_raw = lodi or b""
                    if len(lod_raw) % 4:
                        P("LODI is %d bytes, not a multiple of 4" % len(lod_raw))
                    whole = len(lod_raw) // 4
                    lod_idx = struct.unpack("<%dI" % whole, lod_raw[:whole * 4])
                    bad = [i for i, x in enumerate(lod_idx) if x >= vcount]
                    if bad:
                        P("LODI: %d indices >= vertexCount %d (first: [%d] = %d)"
                          % (len(bad), vcount, bad[0], lod_idx[bad[0]]))
                    for s in range(scount):
                        prev = None  # LOD0: the submesh's own index count
                        if len(subm) >= (s + 1) * 64:
                            prev = struct.unpack_from("<I", subm, s * 64 + 4)[0]
                        for lvl in range(lod_count):
                            fi, ic = struct.unpack_from("<II", lodt, 8 + (s * lod_count + lvl) * 8)
                            tag = "LODT submesh %d lod %d" % (s, lvl + 1)
                            if fi + ic > len(lod_idx):
                                P("%s: [%d, %d) outside LODI (%d)"
                                  % (tag, fi, fi + ic, len(lod_idx)))
                            if ic % 3:
                                P("%s: indexCount %d not a multiple of 3" % (tag, ic))
                            if ic:
                                if prev is not None and ic >= prev:
                                    P("%s: %d indices, not fewer than the level before (%d)"
                                      % (tag, ic, prev))
                                prev = ic
        # SHDW (hearth's extension): position-only shadow geometry
        shdw = chunk(b"SHDW")
        if shdw is not None:
            self.check_shadow(shdw, scount, subm, joint_count, vtxs, indices, vcount, P)
        # UVS1 and COLR (hearth's extensions): a second UV set (f32x2) and linear RGBA16
        # unorm colors, each one per vertex.
        uvs1 = chunk(b"UVS1")
        if uvs1 is not None:
            if len(uvs1) != vcount * 8:
                P("UVS1 is %d bytes, expected %d vertices x 8" % (len(uvs1), vcount))
            elif not all(math.isfinite(x) for x in struct.unpack_from("<%df" % (2 * vcount), uvs1)):
                P("UVS1 holds a non-finite coordinate")
        colr = chunk(b"COLR")
        if colr is not None and len(colr) != vcount * 8:
            P("COLR is %d bytes, expected %d vertices x 8" % (len(colr), vcount))
        # MRPH (hearth's extension): morph targets, MorphDesc {targetCount, flags, vertexCount,
        # reserved}, f32 default weights, then per target f32x3 position deltas and (flags bit
        # 0, bit 1) i16x4 normal and tangent deltas (snorm16 of delta / 2, w = 0).
        mrph = chunk(b"MRPH")
        target_count = 0
        if mrph is not None:
            target_count = self.check_morph(mrph, vcount, P)
        return {"material_count": matcount, "joint_count": joint_count, "mtrl": mtrl,
                "morph_targets": target_count}

    @staticmethod
    def check_morph(mrph, vcount, P):
        if len(mrph) < 16:
            P("MRPH is %d bytes, shorter than its header" % len(mrph))
            return 0
        targets, flags, mcount, reserved = struct.unpack_from("<IIII", mrph, 0)
        if mcount != vcount:
            P("MRPH vertexCount %d, DESC says %d" % (mcount, vcount))
        if flags & ~3 or reserved != 0:
            P("MRPH flags %d / reserved %d: only bits 0-1 are defined, reserved is 0"
              % (flags, reserved))
        quantized = bin(flags & 3).count("1")
        per_target = vcount * (12 + 8 * quantized)
        want = 16 + 4 * targets + targets * per_target
        if len(mrph) != want:
            P("MRPH is %d bytes, expected %d (%d targets, %d vertices, flags %d)"
              % (len(mrph), want, targets, vcount, flags))
            return targets
        weights = struct.unpack_from("<%df" % targets, mrph, 16)
        if not finite(*weights):
            P("MRPH holds a non-finite default weight")
        at = 16 + 4 * targets
        for t in range(targets):
            deltas = struct.unpack_from("<%df" % (3 * vcount), mrph, at)
            if not finite(*deltas):
                P("MRPH target %d holds a non-finite position delta" % t)
            at += 12 * vcount
            for q in range(quantized):
                packed = struct.unpack_from("<%dh" % (4 * vcount), mrph, at)
                if any(packed[4 * v + 3] != 0 for v in range(vcount)):
                    P("MRPH target %d: a quantized delta's w is not 0" % t)
                if any(x == -32768 for x in packed):
                    P("MRPH target %d: -32768 is outside snorm16's symmetric range" % t)
                at += 8 * vcount
        return targets

    @staticmethod
    def check_shadow(shdw, scount, subm, joint_count, vtxs, indices, vcount, P):
        """SHDW: ShadowDesc {vertexCount, indexCount, submeshCount, flags}, MeshLod per
        submesh, f32x3 positions, GpuSkinVertex per position when flags bit 0, u32 indices.
        The welded triangles must be the main mesh's, submesh by submesh."""
        if len(shdw) < 16:
            P("SHDW is %d bytes, shorter than its header" % len(shdw))
            return
        nv, ni, ns, flags = struct.unpack_from("<IIII", shdw, 0)
        skinned = flags & 1
        if flags & ~1:
            P("SHDW flags 0x%x: unknown bits" % flags)
        if ns != scount:
            P("SHDW.submeshCount %d, DESC.submeshCount %d" % (ns, scount))
            return
        want = 16 + ns * 8 + nv * 12 + (nv * 24 if skinned else 0) + ni * 4
        if len(shdw) != want:
            P("SHDW is %d bytes, its header implies %d" % (len(shdw), want))
            return
        if skinned and joint_count is None:
            P("SHDW is skinned but the mesh has no SKEL")
        at = 16 + ns * 8
        pos = [struct.unpack_from("<3f", shdw, at + v * 12) for v in range(nv)]
        at += nv * 12
        if skinned:
            joints = [struct.unpack_from("<4H", shdw, at + v * 24) for v in range(nv)]
            if joint_count is not None and any(j >= joint_count for js in joints for j in js):
                P("SHDW: skin joints out of SKEL's %d" % joint_count)
            at += nv * 24
        sidx = struct.unpack_from("<%dI" % ni, shdw, at)
        if any(i >= nv for i in sidx):
            P("SHDW: indices >= its vertexCount %d" % nv)
            return
        if ni % 3:
            P("SHDW: indexCount %d not a multiple of 3" % ni)
            return
        if len(vtxs) < vcount * 28 or len(indices) < 3:
            return
        main_pos = [struct.unpack_from("<3f", vtxs, v * 28) for v in range(vcount)]
        for s in range(scount):
            fi, ic = struct.unpack_from("<II", shdw, 16 + s * 8)
            if fi + ic > ni or ic % 3:
                P("SHDW submesh %d: [%d, %d) outside its %d indices" % (s, fi, fi + ic, ni))
                continue
            if len(subm) < (s + 1) * 64:
                continue
            mfi, mic = struct.unpack_from("<II", subm, s * 64)
            if any(i >= vcount for i in indices[mfi:mfi + mic]):
                continue  # reported with IDXS
            if mic != ic:
                P("SHDW submesh %d: %d indices, SUBM has %d" % (s, ic, mic))
                continue
            main = sorted(tuple(main_pos[indices[mfi + t * 3 + k]] for k in range(3))
                          for t in range(mic // 3))
            shadow = sorted(tuple(pos[sidx[fi + t * 3 + k]] for k in range(3))
                            for t in range(ic // 3))
            if main != shadow:
                P("SHDW submesh %d: its triangles are not the main mesh's" % s)

    @staticmethod
    def multiset_diff(want, got):
        i = j = missing = extra = 0
        while i < len(want) and j < len(got):
            if want[i] == got[j]:
                i += 1
                j += 1
            elif want[i] < got[j]:
                missing += 1
                i += 1
            else:
                extra += 1
                j += 1
        return missing + len(want) - i, extra + len(got) - j

    @staticmethod
    def check_bounds(P, tag, b):
        if not finite(*b):
            P("%s: non-finite values" % tag)
            return
        if any(b[k] > b[k + 3] for k in range(3)):
            P("%s: AABB min %s > max %s" % (tag, b[0:3], b[3:6]))
        if b[9] < 0:
            P("%s: negative sphere radius %s" % (tag, fmt(b[9])))

    @staticmethod
    def outside(points, b):
        """Indices (into `points`) of points outside the AABB or the sphere of bounds `b`."""
        mnx, mny, mnz, mxx, mxy, mxz, cx, cy, cz, r = b
        extent = max(1.0, abs(mnx), abs(mny), abs(mnz), abs(mxx), abs(mxy), abs(mxz))
        eps = 1e-5 * extent
        reps = r + 1e-4 * max(1.0, r)
        out = []
        for i, (x, y, z) in enumerate(points):
            if (x < mnx - eps or y < mny - eps or z < mnz - eps or x > mxx + eps
                    or y > mxy + eps or z > mxz + eps
                    or math.sqrt((x - cx) ** 2 + (y - cy) ** 2 + (z - cz) ** 2) > reps):
                out.append(i)
        return out

    # -- .hmat -----------------------------------------------------------------------------

    def check_hmat(self, rel, roots):
        data = self.read(rel)
        if len(data) < 16:
            raise Bad("%d bytes, shorter than the 16-byte header" % len(data))
        magic, version, count, flags = struct.unpack_from("<4sIII", data, 0)
        if magic != b"HMAT":
            raise Bad("magic %r, expected b'HMAT'" % magic)
        if version not in (1, 2):
            raise Bad("version %d, expected 1 (or 2, README: properties)" % version)
        if flags != 0:
            self.problem(rel, "header flags %d, expected 0 (reserved)" % flags)
        rows_end = 16 + 96 * count
        properties = []
        if version == 1 and len(data) != rows_end:
            raise Bad("%d bytes, expected 16 + 96 x %d = %d" % (len(data), count, rows_end))
        if version == 2:
            # v2: the v1 rows, then propertyCount u32, reserved u32, 32-byte records
            # (row u32, id u32, value f32x4, texture u64) sorted by (row, id).
            if len(data) < rows_end + 8:
                raise Bad("%d bytes, shorter than the rows and the property header" % len(data))
            pcount, reserved = struct.unpack_from("<II", data, rows_end)
            if reserved != 0:
                self.problem(rel, "property header reserved = %d, expected 0" % reserved)
            if len(data) != rows_end + 8 + 32 * pcount:
                raise Bad("%d bytes, expected %d rows and %d properties = %d"
                          % (len(data), count, pcount, rows_end + 8 + 32 * pcount))
            if pcount == 0:
                self.problem(rel, "version 2 without properties (v1 is written then)")
            properties = [struct.unpack_from("<II4fQ", data, rows_end + 8 + 32 * i)
                          for i in range(pcount)]
            keys = [(p[0], p[1]) for p in properties]
            if keys != sorted(set(keys)):
                self.problem(rel, "properties not sorted by (row, id), or a pair twice")
            for prow, pid, *rest in properties:
                if prow >= count:
                    self.problem(rel, "property %d of row %d: no such row" % (pid, prow))
                if not finite(*rest[:4]):
                    self.problem(rel, "property %d of row %d: non-finite value" % (pid, prow))
        stem = rel[:-len(".hmat")]
        mesh_rel = stem + ".hmesh"
        # A standalone material (README: pak's [material] files and *.mat) has no companion
        # mesh; its textures may live anywhere in the tree.
        standalone = mesh_rel not in self.files
        if not standalone:
            mesh = self.mesh(mesh_rel)
            if mesh is not None and mesh["material_count"] != count:
                self.problem(rel, "%d rows, companion .hmesh has materialCount %d"
                             % (count, mesh["material_count"]))
        root = self.owner_root(rel, roots)
        manifest = self.manifest(root) if root is not None else None
        if manifest is None:
            self.problem(rel, "no readable assets.hman to resolve texture refs")
        slots = ["baseColorTex", "metallicRoughnessTex", "normalTex", "occlusionTex", "emissiveTex"]
        srgb_slot = {"baseColorTex": "srgb", "emissiveTex": "srgb"}
        source_ref = self.under(root, stem) if root is not None else stem
        for i in range(count):
            row = struct.unpack_from("<4f3f5fII5Q", data, 16 + 96 * i)
            factors, rflags, pad, texs = row[:12], row[12], row[13], row[14:]
            tag = "row %d" % i
            if not finite(*factors):
                self.problem(rel, "%s: non-finite factors" % tag)
            if rflags & ~0b111:
                self.problem(rel, "%s: flags %#x has bits beyond 0-2 set" % (tag, rflags))
            if (rflags >> 1) & 3 == 3:
                self.problem(rel, "%s: alpha mode 3 (valid: 0 opaque, 1 mask, 2 blend)" % tag)
            if pad != 0:
                self.problem(rel, "%s: _pad %d, expected 0" % (tag, pad))
            for name, h in zip(slots, texs):
                if h == 0 or manifest is None:
                    continue
                if h not in manifest:
                    self.problem(rel, "%s: %s %016x is not in assets.hman" % (tag, name, h))
                    continue
                kind, cs, path = manifest[h]
                if not os.path.isfile(self.abspath(self.join(root, path))):
                    self.problem(rel, "%s: %s -> %s does not exist" % (tag, name, path))
                if kind != MAN_TEXTURE:
                    self.problem(rel, "%s: %s -> %s has manifest kind %d, expected 0 (texture)"
                                 % (tag, name, path, kind))
                if standalone:
                    continue
                prefix = source_ref + "/tex_"
                idx = ""
                if path.startswith(prefix) and path.endswith(".ktx2"):
                    idx = path[len(prefix):-len(".ktx2")]
                if not idx.isdigit():
                    self.problem(rel, "%s: %s -> %s, expected %s<image>.ktx2"
                                 % (tag, name, path, prefix))
                self.texture_uses.setdefault((root, h), set()).add(srgb_slot.get(name, "linear"))
        # Property textures, in the manifest: sRGB for the sheen and specular color maps and
        # the alpha maps that share them (README: ids 16, 17, 19, 20), linear data otherwise.
        srgb_properties = {16, 17, 19, 20}
        for prow, pid, *rest in properties:
            h = rest[4]
            if h == 0 or manifest is None:
                continue
            if h not in manifest:
                self.problem(rel, "property %d of row %d: texture %016x is not in assets.hman"
                             % (pid, prow, h))
                continue
            kind, cs, path = manifest[h]
            if kind != MAN_TEXTURE or not os.path.isfile(self.abspath(self.join(root, path))):
                self.problem(rel, "property %d of row %d: %s is not an existing texture"
                             % (pid, prow, path))
            use = "srgb" if pid in srgb_properties else "linear"
            self.texture_uses.setdefault((root, h), set()).add(use)

    # -- .hfont (README "Formats": `.hfont` v1) -----------------------------------------

    def check_hfont(self, rel, roots):
        data = self.read(rel)
        if len(data) < 32:
            raise Bad("%d bytes, shorter than the 32-byte header" % len(data))
        (magic, version, line_height, base, scale_w, scale_h, pages, glyphs, kernings,
         size, reserved) = struct.unpack_from("<4sIHHHHIIIhH", data, 0)
        if magic != b"HFNT":
            raise Bad("magic %r, expected b'HFNT'" % magic)
        if version != 1:
            raise Bad("version %d, expected 1" % version)
        if reserved != 0:
            self.problem(rel, "header reserved = %d, expected 0" % reserved)
        want = 32 + 8 * pages + 20 * glyphs + 12 * kernings
        if len(data) != want:
            raise Bad("%d bytes, the tables need exactly %d" % (len(data), want))
        root = self.owner_root(rel, roots)
        manifest = self.manifest(root) if root is not None else None
        for i in range(pages):
            (h,) = struct.unpack_from("<Q", data, 32 + 8 * i)
            if manifest is None:
                continue
            if h not in manifest:
                self.problem(rel, "page %d: %016x is not in assets.hman" % (i, h))
                continue
            kind, cs, path = manifest[h]
            if kind != MAN_TEXTURE:
                self.problem(rel, "page %d -> %s has manifest kind %d, expected 0" % (i, path, kind))
            if not os.path.isfile(self.abspath(self.join(root, path))):
                self.problem(rel, "page %d -> %s does not exist" % (i, path))
        at = 32 + 8 * pages
        previous = None
        for i in range(glyphs):
            gid, x, y, w, h, xo, yo, xa, page, chnl = struct.unpack_from("<IHHHHhhhBB", data, at + 20 * i)
            if previous is not None and gid <= previous:
                self.problem(rel, "glyph %d: id %d does not ascend" % (i, gid))
            previous = gid
            if page >= pages:
                self.problem(rel, "glyph %d: page %d of %d" % (i, page, pages))
            if x + w > scale_w or y + h > scale_h:
                self.problem(rel, "glyph %d: rectangle outside %dx%d" % (i, scale_w, scale_h))
        at += 20 * glyphs
        previous = None
        for i in range(kernings):
            first, second, amount, pad = struct.unpack_from("<IIhH", data, at + 12 * i)
            if previous is not None and (first, second) <= previous:
                self.problem(rel, "kerning %d: pair does not ascend" % i)
            previous = (first, second)
            if pad != 0:
                self.problem(rel, "kerning %d: reserved = %d, expected 0" % (i, pad))

    # -- .hscene (README "Formats": `.hscene` v1) ---------------------------------------

    def check_hscene(self, rel, roots):
        data = self.read(rel)
        if len(data) < 48:
            raise Bad("%d bytes, shorter than the 48-byte header" % len(data))
        head = struct.unpack_from("<4s11I", data, 0)
        magic, version = head[0], head[1]
        refs, geoms, hashes, tags, values, floats, indices, strings, r1, r2 = head[2:]
        if magic != b"HSCN":
            raise Bad("magic %r, expected b'HSCN'" % magic)
        if version != 1:
            raise Bad("version %d, expected 1" % version)
        if r1 or r2:
            self.problem(rel, "header reserved fields are not 0")
        sizes = [80 * refs, 72 * geoms, 8 * hashes, 24 * values, 8 * tags, 4 * floats,
                 4 * indices, strings]
        if len(data) != 48 + sum(sizes):
            raise Bad("%d bytes, the tables need exactly %d" % (len(data), 48 + sum(sizes)))
        starts = []
        at = 48
        for size in sizes:
            starts.append(at)
            at += size
        ref_at, geom_at, hash_at, value_at, tag_at, float_at, index_at, string_at = starts

        def text(offset, length, what):
            if offset + length > strings:
                self.problem(rel, "%s: string past the table" % what)
                return None
            try:
                return data[string_at + offset:string_at + offset + length].decode("utf-8")
            except UnicodeDecodeError:
                self.problem(rel, "%s: string is not UTF-8" % what)
                return None

        def span(first, count, total, what):
            if first + count > total:
                self.problem(rel, "%s: %d..%d past %d" % (what, first, first + count, total))

        def data_value(index, what):
            if index != 0xFFFFFFFF and index >= values:
                self.problem(rel, "%s: data value %d of %d" % (what, index, values))

        for i in range(tags):
            text(*struct.unpack_from("<II", data, tag_at + 8 * i), what="tag %d" % i)
        root = self.owner_root(rel, roots)
        manifest = self.manifest(root) if root is not None else None
        for i in range(refs):
            r = ref_at + 80 * i
            id_off, id_len, mesh, mat_first, mat_count = struct.unpack_from("<IIQII", data, r)
            tag_first, tag_count, value, reserved = struct.unpack_from("<IIII", data, r + 64)
            what = "ref %d" % i
            text(id_off, id_len, what)
            span(mat_first, mat_count, hashes, what + " materials")
            span(tag_first, tag_count, tags, what + " tags")
            data_value(value, what)
            if reserved:
                self.problem(rel, "%s: reserved = %d" % (what, reserved))
            if not finite(*struct.unpack_from("<10f", data, r + 24)):
                self.problem(rel, "%s: non-finite transform" % what)
            placed = ([mesh] if mesh else []) + [
                struct.unpack_from("<Q", data, hash_at + 8 * (mat_first + j))[0]
                for j in range(mat_count) if mat_first + j < hashes]
            for h in placed:
                if manifest is not None and h not in manifest:
                    self.problem(rel, "%s: %016x is not in assets.hman" % (what, h))
        for i in range(geoms):
            g = geom_at + 72 * i
            (id_off, id_len, float_first, vertex_count, components, index_first,
             index_count) = struct.unpack_from("<7I", data, g)
            tag_first, tag_count, value, reserved = struct.unpack_from("<IIII", data, g + 56)
            what = "geometry %d" % i
            text(id_off, id_len, what)
            if components not in (2, 3):
                self.problem(rel, "%s: %d components (2 or 3)" % (what, components))
                continue
            span(float_first, vertex_count * components, floats, what + " vertices")
            span(index_first, index_count, indices, what + " indices")
            span(tag_first, tag_count, tags, what + " tags")
            data_value(value, what)
            if reserved:
                self.problem(rel, "%s: reserved = %d" % (what, reserved))
            for j in range(index_first, min(index_first + index_count, indices)):
                (index,) = struct.unpack_from("<I", data, index_at + 4 * j)
                if index >= vertex_count:
                    self.problem(rel, "%s: index %d past %d vertices" % (what, index, vertex_count))
                    break
        for i in range(values):
            v = value_at + 24 * i
            kind = data[v]
            what = "value %d" % i
            if data[v + 1:v + 4] != b"\0\0\0" or struct.unpack_from("<I", data, v + 12)[0]:
                self.problem(rel, "%s: padding is not 0" % what)
            text(*struct.unpack_from("<II", data, v + 4), what=what + " key")
            if kind == 0:
                text(*struct.unpack_from("<II", data, v + 16), what=what)
            elif kind == 3:
                if struct.unpack_from("<Q", data, v + 16)[0] > 1:
                    self.problem(rel, "%s: bool is not 0 or 1" % what)
            elif kind in (4, 5):
                first, count = struct.unpack_from("<II", data, v + 16)
                if count and first <= i:
                    self.problem(rel, "%s: children before their parent" % what)
                span(first, count, values, what + " children")
                if kind == 5 and first + count <= values:
                    keys = [text(*struct.unpack_from("<II", data, value_at + 24 * c + 4),
                                 what="value %d key" % c) for c in range(first, first + count)]
                    if any(a is None or b is None or a >= b for a, b in zip(keys, keys[1:])):
                        self.problem(rel, "%s: table keys not sorted and unique" % what)
            elif kind not in (1, 2):
                self.problem(rel, "%s: kind %d" % (what, kind))

    def check_colorspaces(self):
        """A texture used only by sRGB slots (base color, emissive) must be listed sRGB, one
        used only by linear slots (metallic-roughness, occlusion, normal) linear."""
        for (root, h), uses in sorted(self.texture_uses.items()):
            if len(uses) != 1:
                continue  # first use wins: cannot tell from the tables
            manifest = self.manifests.get(root)
            if not manifest or h not in manifest:
                continue
            kind, cs, path = manifest[h]
            want = 1 if "srgb" in uses else 0
            if cs != want:
                self.problem(self.join(root, "assets.hman"),
                             "%s: colorspace %d, but every material slot using it is %s"
                             % (path, cs, "sRGB" if want else "linear"))
            # The .ktx2's DFD transfer function must agree with the manifest.
            try:
                tex = self.read(self.join(root, path))
            except OSError:
                continue
            if len(tex) >= 80 and tex[:12] == KTX2_IDENTIFIER:
                dfd_off = struct.unpack_from("<I", tex, 48)[0]
                if dfd_off + 16 <= len(tex):
                    transfer = tex[dfd_off + 14]
                    if transfer not in (1, 2) or (transfer == 2) != (cs == 1):
                        self.problem(self.join(root, path),
                                     "DFD transfer function %d, manifest colorspace %d"
                                     % (transfer, cs))

    # -- .hanim ----------------------------------------------------------------------------

    def check_hanim(self, rel):
        data = self.read(rel)
        r = Reader(data)
        magic, version, clips, reserved = r.take("<4sIII", 16)
        if magic != b"HANM":
            raise Bad("magic %r, expected b'HANM'" % magic)
        if version not in (1, 2):
            raise Bad("version %d, expected 1 (or 2, README: morph weights)" % version)
        if reserved != 0:
            self.problem(rel, "header reserved = %d, expected 0" % reserved)
        mesh_rel = rel[:-len(".hanim")] + ".hmesh"
        joint_count = None
        morph_targets = 0
        weight_channels = 0
        if mesh_rel not in self.files:
            self.problem(rel, "no companion %s" % mesh_rel)
        else:
            mesh = self.mesh(mesh_rel)
            if mesh is not None:
                joint_count = mesh["joint_count"]
                morph_targets = mesh.get("morph_targets", 0)
        joint_channels = 0
        want_components = {0: 3, 1: 4, 2: 3}
        for c in range(clips):
            n = r.u16()
            raw = r.raw(n)
            try:
                name = raw.decode("utf-8")
            except UnicodeDecodeError:
                self.problem(rel, "clip %d: name is not UTF-8" % c)
                name = raw.decode("utf-8", "replace")
            duration = r.f32()
            channels = r.u32()
            tag = "clip %d (%s)" % (c, name)
            if not math.isfinite(duration) or duration < 0:
                self.problem(rel, "%s: duration %s" % (tag, fmt(duration)))
            max_time = None
            for ch in range(channels):
                joint, path, interp, comps, pad, keys = r.take("<IBBBBI", 12)
                ctag = "%s channel %d" % (tag, ch)
                if path == 3 and version == 2:
                    # Morph weights: target = first MRPH target, comps = its mesh's count.
                    weight_channels += 1
                    if comps == 0:
                        raise Bad("%s: a weight channel with 0 components" % ctag)
                    if joint + comps > morph_targets:
                        self.problem(rel, "%s: targets %d..%d beyond the mesh's %d MRPH targets"
                                     % (ctag, joint, joint + comps, morph_targets))
                elif path not in want_components:
                    raise Bad("%s: path %d, expected 0..2 (3 in v2)" % (ctag, path))
                elif comps != want_components[path]:
                    raise Bad("%s: %d components for path %d, expected %d"
                              % (ctag, comps, path, want_components[path]))
                else:
                    joint_channels += 1
                if interp not in (0, 1):
                    self.problem(rel, "%s: interp %d, expected 0 (STEP) or 1 (LINEAR)"
                                 % (ctag, interp))
                if pad != 0:
                    self.problem(rel, "%s: _pad %d, expected 0" % (ctag, pad))
                if path != 3 and joint_count is not None and joint >= joint_count:
                    self.problem(rel, "%s: joint %d >= SKEL joint count %d"
                                 % (ctag, joint, joint_count))
                if keys == 0:
                    self.problem(rel, "%s: no keys" % ctag)
                values = r.take("<%df" % (keys * (1 + comps)), 4 * keys * (1 + comps))
                times = values[::1 + comps]
                if not finite(*values):
                    self.problem(rel, "%s: non-finite key time or value" % ctag)
                elif any(b < a for a, b in zip(times, times[1:])) or (times and times[0] < 0):
                    self.problem(rel, "%s: key times not ascending from >= 0" % ctag)
                elif times:
                    max_time = times[-1] if max_time is None else max(max_time, times[-1])
            if max_time is not None and math.isfinite(duration) \
                    and abs(duration - max_time) > 1e-6 * max(1.0, max_time):
                self.problem(rel, "%s: duration %s, max key time %s"
                             % (tag, fmt(duration), fmt(max_time)))
        if r.pos != len(data):
            self.problem(rel, "%d trailing bytes after %d clips" % (len(data) - r.pos, clips))
        if joint_channels and mesh_rel in self.files and joint_count is None:
            self.problem(rel, "joint channels, but companion %s has no SKEL chunk" % mesh_rel)
        if version == 2 and weight_channels == 0:
            self.problem(rel, "version 2 without weight channels (v1 is written then)")

    # -- .ktx2 -----------------------------------------------------------------------------

    def check_ktx2(self, rel):
        with open(self.abspath(rel), "rb") as f:
            head = f.read(12)
        if head != KTX2_IDENTIFIER:
            self.problem(rel, "not a KTX2 file (identifier %r)" % head)

    # -- .hpack ----------------------------------------------------------------------------

    def check_hpack(self, rel, roots):
        data = self.read(rel)
        if len(data) < 8:
            raise Bad("%d bytes, too short for a pack header" % len(data))
        magic, version = struct.unpack_from("<4sI", data, 0)
        if magic != b"HPAK":
            raise Bad("magic %r, expected b'HPAK'" % magic)
        root = rel.rsplit("/", 1)[0] if "/" in rel else ""
        if version == 2:
            entries = self.check_hpack_v2(rel, data)
        elif version in (3, 4):
            entries = self.check_hpack_v3(rel, data, version)
        else:
            raise Bad("version %d, expected 2, 3 or 4" % version)
        # Every entry is the tree's file, and the tree is all in the pack.
        for path, (payload, codec, size) in sorted(entries.items()):
            target = self.join(root, path)
            try:
                on_disk = self.read(target)
            except OSError:
                self.problem(rel, "entry %s: no such file in the tree" % path)
                continue
            if codec == 0:
                if payload != on_disk:
                    self.problem(rel, "entry %s: bytes differ from the tree's file (%d vs %d bytes)"
                                 % (path, len(payload), len(on_disk)))
            elif size != len(on_disk):
                self.problem(rel, "entry %s: size %d, the tree's file has %d bytes"
                             % (path, size, len(on_disk)))
        for missing in sorted(self.tree(root, roots) - set(entries)):
            self.problem(rel, "tree file %s is not in the pack" % missing)

    def check_path(self, rel, path_bytes, what):
        try:
            path = path_bytes.decode("utf-8")
        except UnicodeDecodeError:
            self.problem(rel, "%s: path is not UTF-8: %r" % (what, path_bytes))
            return path_bytes.decode("utf-8", "replace")
        if not valid_relative_path(path):
            self.problem(rel, "%s: path %r is not a relative forward-slash path" % (what, path))
        return path

    def check_kind(self, rel, path, kind):
        """v2/v3: assetc's PackKind of the extension."""
        want = PACK_KINDS.get(ext_of(path), 0)
        if kind != want:
            self.problem(rel, "entry %s: kind %d, expected %d for its extension"
                         % (path, kind, want))

    def check_kind_v4(self, rel, path, kind):
        """v4: the kind table; the entry's assets.hman row's kind, 8 for assets.hman itself,
        5 (blob) for a file without a row."""
        root = rel.rsplit("/", 1)[0] if "/" in rel else ""
        if path == "assets.hman":
            want, why = MAN_MANIFEST, "the manifest itself"
        elif path == "assets.hnames":
            want, why = MAN_NAMES, "the name table"
        else:
            row = (self.manifest(root) or {}).get(hash_runtime_path(path))
            if row is not None and row[2] == path:
                want, why = row[0], "its assets.hman row's kind"
            else:
                want, why = MAN_BLOB, "blob: no assets.hman row"
        if kind != want:
            self.problem(rel, "entry %s: kind %d, expected %d (%s)" % (path, kind, want, why))

    def check_payloads(self, rel, data, start, spans):
        """Payloads at 16-aligned offsets from `start`, in order, zero-padded to 16, the file
        ending padded. `spans` are (offset, size, path) in the pack's order."""
        cursor = start
        for off, size, path in sorted(spans):
            if off % 16:
                self.problem(rel, "entry %s: offset %d not 16-aligned" % (path, off))
            if off < cursor:
                self.problem(rel, "entry %s: payload at %d overlaps what comes before (ends at %d)"
                             % (path, off, cursor))
            elif off != align16(cursor):
                self.problem(rel, "entry %s: payload at %d, expected the next 16-aligned offset %d"
                             % (path, off, align16(cursor)))
            elif any(data[cursor:off]):
                self.problem(rel, "non-zero padding before entry %s" % path)
            cursor = max(cursor, off + size)
        if len(data) != align16(cursor):
            self.problem(rel, "file is %d bytes, expected %d (payloads end padded to 16)"
                         % (len(data), align16(cursor)))
        elif any(data[cursor:]):
            self.problem(rel, "non-zero padding at the end of the file")

    def check_hpack_v2(self, rel, data):
        r = Reader(data)
        _, _, count, flags, toc_bytes = r.take("<4sIIIQ", 24)
        if flags != 0:
            self.problem(rel, "flags %d, expected 0" % flags)
        if 24 + toc_bytes > len(data):
            raise Bad("TOC of %d bytes runs past the file end" % toc_bytes)
        entries = {}
        spans = []
        prev = None
        for i in range(count):
            off, size, kind, n = r.take("<QQBH", 19)
            raw = r.raw(n)
            path = self.check_path(rel, raw, "TOC entry %d" % i)
            if prev is not None and raw <= prev:
                self.problem(rel, "TOC entry %d (%s) not after %r (sorted bytewise, unique)"
                             % (i, path, prev.decode("utf-8", "replace")))
            prev = raw
            self.check_kind(rel, path, kind)
            if off + size > len(data) or off < 24 + toc_bytes:
                self.problem(rel, "entry %s: payload [%d, %d) outside the payload area"
                             % (path, off, off + size))
                continue
            entries[path] = (data[off:off + size], 0, size)
            spans.append((off, size, path))
        if r.pos != 24 + toc_bytes:
            self.problem(rel, "TOC entries take %d bytes, header says tocBytes = %d"
                         % (r.pos - 24, toc_bytes))
        if [s[2] for s in sorted(spans)] != [s[2] for s in spans]:
            self.problem(rel, "payloads are not in TOC order")
        self.check_payloads(rel, data, 24 + toc_bytes, spans)
        return entries

    def check_hpack_v3(self, rel, data, version):
        """v3, or v4: v3's layout with the kind table in the entry's kind byte."""
        if len(data) < 96:
            raise Bad("%d bytes, shorter than the 96-byte v%d header" % (len(data), version))
        (_, _, n_entries, n_dirs, flags, header_size, file_size, entries_off, dirs_off,
         hash_off, strings_off, strings_size, data_off, _checksum,
         reserved) = struct.unpack_from("<4sIIIII9Q", data, 0)
        P = lambda what: self.problem(rel, what)
        if flags != 0:
            P("flags %d, expected 0" % flags)
        if header_size != 96:
            P("headerSize %d, expected 96" % header_size)
        if reserved != 0:
            P("header reserved %d, expected 0" % reserved)
        if file_size != len(data):
            raise Bad("fileSize %d, the file has %d bytes" % (file_size, len(data)))
        expect = [
            ("entriesOffset", entries_off, 96),
            ("dirsOffset", dirs_off, entries_off + 48 * n_entries),
            ("hashIndexOffset", hash_off, dirs_off + 8 * n_dirs),
            ("stringsOffset", strings_off, hash_off + 16 * n_entries),
            ("dataOffset", data_off, align16(strings_off + strings_size)),
        ]
        for name, got, want in expect:
            if got != want:
                raise Bad("%s %d, expected %d" % (name, got, want))
        if strings_size >= 1 << 32:
            P("stringsSize %d not below 2^32" % strings_size)
        if data_off > len(data):
            raise Bad("tables end at %d, past the file end %d" % (data_off, len(data)))
        if any(data[strings_off + strings_size:data_off]):
            P("non-zero padding between the string table and the payloads")
        strings = data[strings_off:strings_off + strings_size]
        string_refs = {}  # (offset, len) -> bytes
        by_content = {}  # bytes -> (offset, len)

        def string(off, n, what):
            if off + n > len(strings):
                raise Bad("%s: string [%d, %d) outside the string table (%d bytes)"
                          % (what, off, off + n, len(strings)))
            s = strings[off:off + n]
            string_refs[(off, n)] = s
            other = by_content.setdefault(s, (off, n))
            if other != (off, n):
                P("%s: string %r stored twice (at %d and %d)"
                  % (what, s.decode("utf-8", "replace"), other[0], off))
            return s

        dirs = []
        for d in range(n_dirs):
            off, n = struct.unpack_from("<II", data, dirs_off + 8 * d)
            raw = string(off, n, "dir %d" % d)
            path = self.check_path(rel, raw, "dir %d" % d)
            if dirs and raw <= dirs[-1][0]:
                P("dir %d (%s) not after the dir before (sorted, unique)" % (d, path))
            dirs.append((raw, path))
        entries = {}
        spans = []
        full_paths = []
        prev = None
        for e in range(n_entries):
            (off, stored, size, _sum, dir_index, name_off, name_len, kind, codec,
             res) = struct.unpack_from("<QQQQIIHBBI", data, entries_off + 48 * e)
            raw_name = string(name_off, name_len, "entry %d name" % e)
            if not raw_name or b"/" in raw_name:
                P("entry %d: file name %r empty or containing '/'" % (e, raw_name))
            if dir_index == ROOT_DIR:
                raw = raw_name
            elif dir_index < n_dirs:
                raw = dirs[dir_index][0] + b"/" + raw_name
            else:
                P("entry %d: dir %d, only %d dirs" % (e, dir_index, n_dirs))
                full_paths.append(None)
                continue
            path = self.check_path(rel, raw, "entry %d" % e)
            full_paths.append(path)
            if prev is not None and raw <= prev:
                P("entry %d (%s) not after %r (sorted by full path, unique)"
                  % (e, path, prev.decode("utf-8", "replace")))
            prev = raw
            if res != 0:
                P("entry %s: reserved %d, expected 0" % (path, res))
            if version == 3:
                self.check_kind(rel, path, kind)
            else:
                self.check_kind_v4(rel, path, kind)
            if off < data_off or off + stored > len(data):
                P("entry %s: payload [%d, %d) outside [dataOffset %d, %d)"
                  % (path, off, off + stored, data_off, len(data)))
                continue
            payload = data[off:off + stored]
            spans.append((off, stored, path))
            entries[path] = (payload, codec, size)
            ext = ext_of(path)
            if codec == 0:
                if stored != size:
                    P("entry %s: stored (codec 0) but storedSize %d != size %d"
                      % (path, stored, size))
                continue
            if codec not in (1, 2, 3):
                P("entry %s: codec %d, expected 0..3" % (path, codec))
                continue
            if size < 64:
                P("entry %s: %d bytes compressed (entries under 64 bytes are stored)"
                  % (path, size))
            if stored * 16 > size * 15:
                P("entry %s: compressed %d -> %d saves less than 1/16 (should be stored)"
                  % (path, size, stored))
            if ext in ALREADY_COMPRESSED:
                P("entry %s: codec %d on an already compressed type" % (path, codec))
            if ext == ".ktx2":
                try:
                    pack_dir = rel.rsplit("/", 1)[0] if "/" in rel else ""
                    with open(self.abspath(self.join(pack_dir, path)), "rb") as f:
                        head = f.read(48)
                    if len(head) == 48 and struct.unpack_from("<I", head, 44)[0] != 0:
                        P("entry %s: codec %d on a supercompressed KTX2 (should be stored)"
                          % (path, codec))
                except OSError:
                    pass
            if codec == 1:
                self.check_zstd_frame(P, path, payload, size)
            elif codec == 2 and not payload.startswith(SNAPPY_STREAM_ID):
                P("entry %s: snappy entry does not start with the framing-format stream id" % path)
        self.check_payloads(rel, data, data_off, spans)
        # Strings: every byte belongs to exactly one distinct string.
        covered = 0
        for off, n in sorted(string_refs):
            if off < covered:
                P("string table: strings overlap at %d" % off)
            covered = max(covered, off + n)
        used = sum(n for _, n in string_refs)
        if used != len(strings):
            P("string table: %d bytes, the dirs and names use %d" % (len(strings), used))
        # Hash index.
        slots = [struct.unpack_from("<QII", data, hash_off + 16 * i) for i in range(n_entries)]
        if slots != sorted(slots, key=lambda s: (s[0], s[1])):
            P("hash index not sorted by (hash, entry)")
        seen = [0] * n_entries
        for h, e, res in slots:
            if res != 0:
                P("hash slot for entry %d: reserved %d, expected 0" % (e, res))
            if e >= n_entries:
                P("hash slot names entry %d, only %d entries" % (e, n_entries))
                continue
            seen[e] += 1
            path = full_paths[e]
            if path is not None and hash_runtime_path(path) != h:
                P("hash slot for %s: %016x, FNV-1a of its ref is %016x"
                  % (path, h, hash_runtime_path(path)))
        for e, n in enumerate(seen):
            if n != 1:
                P("entry %d (%s) appears %d times in the hash index" % (e, full_paths[e], n))
        return entries

    @staticmethod
    def check_zstd_frame(P, path, payload, size):
        if not payload.startswith(ZSTD_MAGIC) or len(payload) < 6:
            P("entry %s: zstd entry does not start with a zstd frame" % path)
            return
        fhd = payload[4]
        fcs_flag, single, dict_flag = fhd >> 6, (fhd >> 5) & 1, fhd & 3
        pos = 5 + (0 if single else 1) + (0, 1, 2, 4)[dict_flag]
        fcs_len = (1 if single else 0, 2, 4, 8)[fcs_flag]
        if fcs_len == 0 or pos + fcs_len > len(payload):
            return  # content size not recorded
        fcs = int.from_bytes(payload[pos:pos + fcs_len], "little") + (256 if fcs_len == 2 else 0)
        if fcs != size:
            P("entry %s: zstd frame content size %d, entry size %d" % (path, fcs, size))


def main(argv):
    if len(argv) != 2 or argv[1] in ("-h", "--help"):
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    out = argv[1]
    if not os.path.isdir(out):
        print("spec_check: %s is not a directory" % out, file=sys.stderr)
        return 2
    checker = Checker(out)
    checker.run()
    for line in checker.problems:
        print(line)
    print("spec_check: %d files checked, %d problems" % (checker.checked, len(checker.problems)))
    return 1 if checker.problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
