"""NumPy's side of TestNumPyRecords (numpy_test.go).

    python3 numpy_records.py make DIR [--short]
    python3 numpy_records.py check DIR

make writes record arrays (structured dtypes: packed, align=True, nested,
sub-arrays, titles, explicit offsets, a big-endian field that rides
along, names outside ASCII and Latin-1) and plain arrays into DIR as .npy
files, NumPy's own results for each vkcompact command run on them
(a[mask], np.concatenate of a[mask] and a[~mask], a[np.argsort(...,
kind='stable')], as the indices into a), and DIR/cases.json: each case's
vkcompact arguments, its output, the indices and where the test is to put
the command's
JSON. It also writes the bad inputs the test's table names. check loads
every output with np.load and compares it with NumPy's result: the same
dtype as the input's, the same shape, the same bits in every field, the
input records' own padding bytes, and the JSON's counts; it prints one
line per case and exits 1 if any differs.

Sorts order float keys by IEEE 754 totalOrder (-NaN < -Inf < ... < -0.0 <
+0.0 < ... < +Inf < +NaN), as vkcompact documents; NumPy's argsort puts
NaN last and -0.0 beside 0.0, so the reference sorts the float bits mapped
to that order, with NumPy's stable argsort. Integer keys sort by
np.argsort of the field itself.
"""

import json
import os
import sys
import warnings

import numpy as np

warnings.simplefilter("ignore")  # format 3.0 for the non-Latin-1 field name

def f32_with_specials(rng, n, scale=4.0):
    """n float32 keys of few values, so that stability shows, with
    infinities, signed zeros, NaNs of both signs, a denormal and a large
    negative number among them."""
    v = (rng.integers(-20, 21, n) / scale).astype("<f4")
    sp = np.array([np.inf, -np.inf, 0.0, -0.0, np.nan, np.nan, 1e-45, -3.4e38], dtype="<f4")
    sp.view("<u4")[5] = 0xFFC00000  # -NaN
    for i in range(0, n, 37):
        v[i] = sp[(i // 37) % len(sp)]
    return v


def mapped(keys):
    """The order-preserving map of keys to unsigned integers: vkcompact's
    order (IEEE totalOrder for floats)."""
    k = np.ascontiguousarray(keys)
    if k.dtype == np.dtype("<f4"):
        u = k.view("<u4")
        return np.where(u & np.uint32(0x80000000), ~u, u | np.uint32(0x80000000))
    if k.dtype == np.dtype("<i4"):
        return k.view("<u4") ^ np.uint32(0x80000000)
    return k


def order(keys, descending=False, bits=None):
    """The stable order of keys, by NumPy's argsort(kind='stable')."""
    if keys.dtype.kind == "f" or bits is not None:
        k = mapped(keys)
        if bits is not None:
            lo, hi = bits
            k = (k >> k.dtype.type(lo)) & k.dtype.type((1 << (hi - lo)) - 1)
    else:
        k = keys
    if not descending:
        return np.argsort(k, kind="stable")
    n = len(k)
    # Descending and stable: the ascending stable order of the reversed
    # keys, reversed and mapped back.
    return (n - 1 - np.argsort(k[::-1], kind="stable"))[::-1]


def make(d, short):
    rng = np.random.default_rng(39)
    cases = []

    def path(name):
        return os.path.join(d, name)

    def case(name, args, inp, idx, kept=None, field=None, run_short=False):
        """A case: vkcompact's args on the file inp, whose output is to be
        NumPy's inp[idx] (idx: a mask's indices, or an argsort)."""
        if short and not run_short:
            return
        out, want, js = path(name + ".out.npy"), path(name + ".idx.npy"), path(name + ".json")
        np.save(want, np.asarray(idx, dtype=np.intp))
        cases.append({"name": name, "args": args[:1] + ["-in", path(inp), "-out", out, "-json"] + args[1:],
                      "input": path(inp), "output": out, "idx": want, "json": js, "kept": kept, "field": field})

    def kept(m):
        return np.flatnonzero(m)

    def split(m):
        return np.concatenate([np.flatnonzero(m), np.flatnonzero(~m)])

    # The particles: four float32 fields.
    parts_t = np.dtype([("x", "<f4"), ("y", "<f4"), ("z", "<f4"), ("life", "<f4")])
    parts = np.zeros(1000, parts_t)
    for f in parts_t.names:
        parts[f] = f32_with_specials(rng, 1000)
    np.save(path("parts.npy"), parts)
    m = parts["life"] > 0
    case("compact_life", ["compact", "-key", "life", "-keep", "x > 0"], "parts.npy", kept(m), int(m.sum()), "life", True)
    m = parts["life"] != 0  # NaN != 0 is true; -0.0 == 0.0
    case("split_life", ["split", "-key", "life", "-keep", "x != 0"], "parts.npy", split(m), int(m.sum()), "life")
    case("sort_life", ["sort", "-key", "life"], "parts.npy", order(parts["life"]), None, "life")
    np.save(path("parts0.npy"), parts[:0])
    case("sort_empty", ["sort", "-key", "z", "-descending"], "parts0.npy", [], None, "z")

    # Packed (align=False): 10-byte records, the key at byte 1.
    packed_t = np.dtype([("flag", "u1"), ("depth", "<f4"), ("id", "<u2"), ("tag", "S3")])
    packed = np.zeros(777, packed_t)
    packed["flag"] = rng.integers(0, 256, 777)
    packed["depth"] = f32_with_specials(rng, 777)
    packed["id"] = np.arange(777)
    packed["tag"] = [b"abc", b"de", b"", b"xyz"] * 194 + [b"q"]
    np.save(path("packed.npy"), packed)
    case("sort_depth_desc", ["sort", "-key", "depth", "-descending"], "packed.npy", order(packed["depth"], True), None, "depth", True)
    m = packed["depth"] != 0  # NaN is nonzero; -0.0 is not
    case("compact_nonzero_inplace", ["compact", "-key", "depth", "-keep", "nonzero", "-inplace"], "packed.npy", kept(m), int(m.sum()), "depth")

    # align=True, nested, a sub-array, a title, a big-endian field riding
    # along, names outside ASCII (Latin-1 and not).
    nested_t = np.dtype([("pos", [("x", "<f4"), ("y", "<f4"), ("z", "<f4")]), ("vel", "<f4", (3,)), ("flag", "u1"),
                         ("id", "<u8"), ("key", "<i4"), ("be", ">f8"), ("é", "<i2"), (("a title", "t"), "<u4"), ("μ", "u1")],
                        align=True)
    nested = np.zeros(500, nested_t)
    for f in ("x", "y", "z"):
        nested["pos"][f] = f32_with_specials(rng, 500)
    nested["vel"] = rng.standard_normal((500, 3))
    nested["flag"] = rng.integers(0, 256, 500)
    nested["id"] = rng.integers(0, 1 << 63, 500, dtype=np.uint64) | (rng.integers(0, 2, 500, dtype=np.uint64) << np.uint64(63))
    nested["key"] = rng.integers(-1000, 1000, 500)
    nested["be"] = rng.standard_normal(500)
    nested["é"] = rng.integers(-30000, 30000, 500)
    nested["t"] = np.arange(500)
    nested["μ"] = rng.integers(0, 256, 500)
    np.save(path("nested.npy"), nested)
    mask = rng.integers(0, 2, 500).astype(bool)
    np.save(path("nested_mask.npy"), mask)
    case("split_flags", ["split", "-key", "pos.z", "-flags", path("nested_mask.npy")], "nested.npy",
         split(mask), int(mask.sum()), "pos.z", True)
    case("sort_key_bits", ["sort", "-key", "key", "-bits", "2:9"], "nested.npy", order(nested["key"], bits=(2, 9)), None, "key")
    case("sort_id_desc", ["sort", "-key", "id", "-descending"], "nested.npy", order(nested["id"], True), None, "id")
    m = nested["id"] >= np.uint64(1 << 62)
    case("compact_u64", ["compact", "-key", "id", "-keep", "x >= 0x4000000000000000"], "nested.npy", kept(m), int(m.sum()), "id")

    # Explicit offsets and itemsize: a u32 key at byte 2 (the GPU's slot
    # shifts it), a float64 at byte 8, 18-byte records.
    offs_t = np.dtype({"names": ["a", "k", "d"], "formats": ["<u2", "<u4", "<f8"], "offsets": [0, 2, 8], "itemsize": 18})
    offs = np.zeros(300, offs_t)
    offs["a"] = np.arange(300)
    offs["k"] = rng.integers(0, 64, 300)
    offs["d"] = rng.standard_normal(300)
    offs["d"][::29] = np.nan
    np.save(path("offsets.npy"), offs)
    case("sort_offsets", ["sort", "-key", "k"], "offsets.npy", order(offs["k"]), None, "k", True)
    m = offs["d"] < 0.5
    case("compact_f64", ["compact", "-key", "d", "-keep", "x < 0.5"], "offsets.npy", kept(m), int(m.sum()), "d")

    # Plain arrays need no -type: the header gives it.
    keys = f32_with_specials(rng, 3001)
    np.save(path("keys.npy"), keys)
    case("sort_plain", ["sort"], "keys.npy", order(keys), None, None, True)
    i64 = rng.integers(-20, 21, 2049).astype("<i8")
    i64[:2] = [np.iinfo(np.int64).min, np.iinfo(np.int64).max]
    np.save(path("i64.npy"), i64)
    case("compact_plain", ["compact", "-keep", "x < -5"], "i64.npy", kept(i64 < -5), int((i64 < -5).sum()))

    # Bad inputs, as NumPy writes them; the test names the messages.
    np.save(path("bad_bigendian.npy"), np.zeros(3, [("x", ">f4"), ("y", "<f4")]))
    np.save(path("bad_object.npy"), np.zeros(3, [("o", "O"), ("x", "<f4")]), allow_pickle=True)
    np.save(path("bad_subarray.npy"), np.zeros(3, [("v", "<f4", (3,)), ("k", "<u4")]))
    np.save(path("bad_wide.npy"), np.zeros(3, [("a", "V256"), ("k", "<u4")]))
    np.save(path("bad_types.npy"), np.zeros(3, [("h", "<f2"), ("s", "S4"), ("i", "<i8")]))
    np.save(path("bad_2d.npy"), np.zeros((2, 3), parts_t))

    with open(path("cases.json"), "w") as f:
        json.dump(cases, f, indent=1)


def field_mask(dt):
    """The bytes of a record that its fields hold, not its padding: NumPy
    leaves a result's padding as it finds the memory (a[mask] of an
    align=True dtype holds garbage there), so a[mask] is compared with
    vkcompact's output field by field, bit for bit."""
    m = np.zeros(dt.itemsize, bool)

    def walk(t, off):
        if t.names is not None:
            for name in t.names:
                ft, foff = t.fields[name][:2]
                walk(ft, off + foff)
        elif t.subdtype is not None:
            base, shape = t.subdtype
            for i in range(int(np.prod(shape))):
                walk(base, off + i * base.itemsize)
        else:
            m[off:off + t.itemsize] = True

    walk(dt, 0)
    return m


def check(d):
    with open(os.path.join(d, "cases.json")) as f:
        cases = json.load(f)
    failed = 0
    for c in cases:
        problems = []
        inp, idx = np.load(c["input"]), np.load(c["idx"])
        want = inp[idx]  # NumPy's own a[mask], or a[np.argsort(...)]
        # The whole records, padding included, as they were in the input:
        # a void view's items copy whole.
        whole = np.ascontiguousarray(inp).view("V%d" % inp.dtype.itemsize)[idx].tobytes() if inp.dtype.itemsize else b""
        try:
            out = np.load(c["output"])
        except Exception as e:  # noqa: BLE001 - reported as the case's failure
            problems.append("np.load: %s" % e)
            out = None
        if out is not None:
            size = inp.dtype.itemsize
            if out.dtype != inp.dtype or out.dtype.descr != inp.dtype.descr:
                problems.append("dtype %r, want the input's %r" % (out.dtype.descr, inp.dtype.descr))
            elif out.shape != want.shape:
                problems.append("shape %s, want %s" % (out.shape, want.shape))
            else:
                mask = field_mask(inp.dtype)
                got_fields = np.frombuffer(out.tobytes(), np.uint8).reshape(-1, size)[:, mask]
                want_fields = np.frombuffer(want.tobytes(), np.uint8).reshape(-1, size)[:, mask]
                diff = np.flatnonzero((got_fields != want_fields).any(axis=1))
                if len(diff):
                    problems.append("%d of %d records differ from NumPy's, the first at %d: %r, want %r"
                                    % (len(diff), len(want), diff[0], out[diff[0]], want[diff[0]]))
                elif out.tobytes() != whole:
                    problems.append("the fields are NumPy's, but the padding bytes are not the input records'")
        with open(c["json"]) as f:
            js = json.load(f)
        if c["kept"] is not None and js.get("kept") != c["kept"]:
            problems.append("JSON kept %s, NumPy's mask %d" % (js.get("kept"), c["kept"]))
        if js.get("field") != c["field"]:
            problems.append("JSON field %r, want %r" % (js.get("field"), c["field"]))
        if problems:
            failed += 1
            print("FAIL %s: %s" % (c["name"], "; ".join(problems)))
        else:
            print("ok %s: %d of %d records of %r" % (c["name"], len(want), len(inp),
                                                      inp.dtype.descr if inp.dtype.names else inp.dtype.str))
    print("numpy %s: %d cases, %d failed" % (np.__version__, len(cases), failed))
    return 1 if failed else 0


def main():
    if len(sys.argv) >= 3 and sys.argv[1] == "make":
        make(sys.argv[2], "--short" in sys.argv[3:])
        return 0
    if len(sys.argv) == 3 and sys.argv[1] == "check":
        return check(sys.argv[2])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
