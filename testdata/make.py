"""Makes the shared fixtures of vkcompact's tests with NumPy.

    python3 testdata/make.py [DIR]

writes into DIR (by default the folder this script is in) .npy inputs and
what NumPy computes of them as vkcompact's commands do, and cases.json,
the commands to run on them with what each must write:

  arrays/    plain arrays of each key type (u32, i32, f32, u64, i64, f64):
             runs of equal values among few distinct ones, the floats with
             infinities, signed zeros, NaNs of both signs and a denormal;
             values.npy, a uint32 value per key for sort -values
  records/   record arrays (structured dtypes): packed, align=True, nested,
             sub-arrays, a title, explicit offsets and itemsize, a
             big-endian field riding along, names in Latin-1 and beyond,
             the empty array; a mask for split -flags
  bad/       record arrays the commands refuse, as NumPy writes them
  want/      the outputs: a[mask] (compact), a[mask] then a[~mask]
             (split), the three groups of partition3, the sorted keys or
             records (sort, stably), the first of each run of equal keys
             (unique), each run's first key and length, or the offsets and
             lengths of the runs longer than one (rle), the prefix sums
             (scan, exclusive and inclusive, wrapping); the reductions
             (np.add.reduce, np.minimum.reduce, np.maximum.reduce with
             keepdims, np.argmin and np.argmax as uint32; within segments
             np.add.reduceat and a loop giving empty segments the
             identity; by key each run's first key and np.add.reduceat or
             np.maximum.reduceat of its values), np.histogram's counts as
             uint32, np.take (gather), out[indices] = a (scatter) and
             np.argsort(kind='stable') as uint32 (sort -argsort); the scans
             with min and max (np.minimum.accumulate, np.maximum.accumulate;
             an exclusive scan shifted by one, the identity first) and the
             scans by key (np.cumsum and the accumulates over each run of
             equal keys); unique by key: np.unique(keys, return_index=True)
             on sorted keys, the keys and values taken at those indices

Every output is NumPy's own np.save of its result, so that a command's
output file must equal it byte for byte, its header included. Records
are copied whole, their padding included. Sorts order float keys by IEEE
754 totalOrder (-NaN < -Inf < ... < -0.0 < +0.0 < ... < +Inf < +NaN), as
vkcompact documents: NumPy's argsort puts NaN last and -0.0 beside 0.0, so
the reference sorts the float bits mapped to that order, with NumPy's
stable argsort. Keys are equal as their type compares them: -0.0 equals
0.0, a NaN equals nothing. The seeds are fixed: the files are the same on
every run, which the test of the fixtures checks.
"""

import json
import os
import sys
import warnings

import numpy as np

warnings.simplefilter("ignore")  # format 3.0 for the non-Latin-1 field name

TYPES = {"u32": "<u4", "i32": "<i4", "f32": "<f4", "u64": "<u8", "i64": "<i8", "f64": "<f8"}
SORTED_TYPES = ("u32", "i32", "f32", "u64")  # the key types sort takes
SCAN_TYPES = ("u32", "i32", "f32")  # and scan


def specials(dtype):
    """Infinities, signed zeros, NaNs of both signs and a denormal."""
    sp = np.array([np.inf, -np.inf, 0.0, -0.0, np.nan, np.nan, 1e-45 if dtype == "<f4" else 5e-324], dtype=dtype)
    if dtype == "<f4":
        sp.view("<u4")[5] = 0xFFC00000  # -NaN
    else:
        sp.view("<u8")[5] = 0xFFF8000000000000
    return sp


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


def runs_of(rng, distinct, n):
    """n values in runs of 1 to 6 equal ones, each run's value drawn from
    distinct (so that equal values also recur apart)."""
    out = []
    while len(out) < n:
        out.extend([distinct[rng.integers(0, len(distinct))]] * int(rng.integers(1, 7)))
    return out[:n]


def plain_array(rng, name, n):
    """A plain array of the key type name in runs (runs_of)."""
    dt = TYPES[name]
    if name == "u32":
        distinct = list(rng.integers(0, 1 << 32, 40, dtype=np.uint64)) + [0, 1, 0xFFFFFFFF]
    elif name == "i32":
        distinct = list(rng.integers(-(1 << 31), 1 << 31, 40)) + [0, -1, -(1 << 31), (1 << 31) - 1]
    elif name == "u64":
        distinct = list(rng.integers(0, 1 << 64, 40, dtype=np.uint64)) + [0, 1, (1 << 64) - 1]
    elif name == "i64":
        distinct = list(rng.integers(-(1 << 63), 1 << 63, 40, dtype=np.int64)) + [0, -1, -(1 << 63), (1 << 63) - 1]
    else:  # floats: quarters from -8 to 8, and the specials
        distinct = list(rng.integers(-32, 33, 40) / 4.0) + list(specials(dt))
    a = np.zeros(n, dt)
    for i, v in enumerate(runs_of(rng, distinct, n)):
        a[i:i + 1] = np.array([v]).astype(dt)  # NaN payloads and signs kept
    if name == "f32" or name == "f64":
        # -NaN's sign: astype keeps it, but make sure of one.
        a.view("<u4" if name == "f32" else "<u8")[::97] = specials(dt).view("<u4" if name == "f32" else "<u8")[5]
    return a


def mapped(keys):
    """The order-preserving map of keys to unsigned integers: vkcompact's
    order (IEEE totalOrder for floats)."""
    k = np.ascontiguousarray(keys)
    if k.dtype == np.dtype("<f4"):
        u = k.view("<u4")
        return np.where(u & np.uint32(0x80000000), ~u, u | np.uint32(0x80000000))
    if k.dtype == np.dtype("<i4"):
        return k.view("<u4") ^ np.uint32(0x80000000)
    if k.dtype == np.dtype("<f8"):
        u = k.view("<u8")
        return np.where(u & np.uint64(1 << 63), ~u, u | np.uint64(1 << 63))
    if k.dtype == np.dtype("<i8"):
        return k.view("<u8") ^ np.uint64(1 << 63)
    return k


def order(keys, descending=False, bits=None):
    """The stable order of keys, by NumPy's argsort(kind='stable')."""
    if keys.dtype.kind in "fi" or bits is not None:
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


def whole(a, idx):
    """a's items at idx, copied whole (a record's padding too): a void
    view's items copy whole, where a[idx] of an align=True dtype leaves
    the padding as it finds the memory."""
    a = np.ascontiguousarray(a)
    if a.dtype.itemsize == 0 or len(idx) == 0:
        return a[np.asarray(idx, dtype=np.intp)]
    return a.view("V%d" % a.dtype.itemsize)[np.asarray(idx, dtype=np.intp)].view(a.dtype)


def run_starts(a):
    """Where each run of equal keys starts: a[i] != a[i-1] as the type
    compares (-0.0 == 0.0; NaN != NaN)."""
    if len(a) == 0:
        return np.zeros(0, np.intp)
    return np.flatnonzero(np.r_[True, a[1:] != a[:-1]])


class Fixtures:
    """The files and the cases being written into a directory."""

    def __init__(self, d):
        self.d, self.cases = d, []

    def path(self, name):
        p = os.path.join(self.d, name)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        return p

    def save(self, name, a, **kw):
        np.save(self.path(name), a, **kw)
        return name

    def case(self, name, args, inp, outputs, js=None, short=False):
        """A case: vkcompact's args on the file inp, whose outputs (flag ->
        array) are to be NumPy's, and whose JSON holds js."""
        assert name not in (c["name"] for c in self.cases), name
        outs = {flag: self.save("want/%s%s.npy" % (name, "" if flag == "-out" else flag.replace("-out", "").replace("-", "_")), a)
                for flag, a in outputs.items()}
        self.cases.append({"name": name, "args": args[:1] + ["-in", inp] + args[1:], "outputs": outs,
                           "json": js or {}, "short": short})

    def write_cases(self):
        with open(self.path("cases.json"), "w", encoding="utf-8") as f:
            f.write("[\n" + ",\n".join(json.dumps(c, ensure_ascii=False) for c in self.cases) + "\n]\n")


def plain_cases(fx, rng):
    """Every command on a plain array of each key type."""
    n = 1001
    values = np.arange(n, dtype="<u4") * np.uint32(7) + np.uint32(3)
    fx.save("arrays/values.npy", values)
    preds = {  # compact's and split's -keep, partition3's -first and -second
        "u32": ("x > 0x7fffffff", lambda a: a > np.uint32(0x7FFFFFFF), "x < 0x40000000", lambda a: a < np.uint32(0x40000000)),
        "i32": ("x < -5", lambda a: a < -5, "x & 1", lambda a: (a & 1) != 0),
        "f32": ("x >= 0.5", lambda a: a >= np.float32(0.5), "x != 0", lambda a: a != 0),
        "u64": ("x & 0x8000000000000000", lambda a: (a & np.uint64(1 << 63)) != 0, "x <= 0x1000000000000", lambda a: a <= np.uint64(1 << 48)),
        "i64": ("x != 0", lambda a: a != 0, "x > -1000", lambda a: a > -1000),
        "f64": ("x <= -1", lambda a: a <= -1.0, "x == 0", lambda a: a == 0.0),
    }
    for name in TYPES:
        a = plain_array(rng, name, n)
        inp = fx.save("arrays/%s.npy" % name, a)
        expr, keep, second, keep2 = preds[name]
        m = keep(a)
        short = name in ("f32", "u64")
        fx.case("compact_" + name, ["compact", "-keep", expr], inp, {"-out": a[m]}, {"kept": int(m.sum()), "total": n}, short)
        fx.case("split_" + name, ["split", "-keep", expr], inp, {"-out": np.concatenate([a[m], a[~m]])}, {"kept": int(m.sum())})
        m2 = ~m & keep2(a)
        rest = ~m & ~m2
        fx.case("partition3_" + name, ["partition3", "-first", expr, "-second", second], inp,
                {"-out-first": a[m], "-out-second": a[m2], "-out-rest": a[rest]},
                {"first_count": int(m.sum()), "second_count": int(m2.sum()), "rest_count": int(rest.sum())}, name == "i32")
        starts = run_starts(a)
        lengths = np.diff(np.r_[starts, n]).astype("<u4")
        fx.case("unique_" + name, ["unique"], inp, {"-out": a[starts]}, {"runs": len(starts), "total": n}, name == "f64")
        fx.case("rle_" + name, ["rle"], inp, {"-out": a[starts], "-lengths": lengths}, {"runs": len(starts)}, name == "i32")
        long = lengths > 1
        fx.case("rle_nontrivial_" + name, ["rle", "-nontrivial"], inp,
                {"-out": starts[long].astype("<u4"), "-lengths": lengths[long]}, {"runs": int(long.sum())})
        if name in SORTED_TYPES:
            fx.case("sort_" + name, ["sort"], inp, {"-out": a[order(a)]}, {"n": n}, name == "f32")
            idx = order(a, descending=True)
            fx.case("sort_pairs_desc_" + name, ["sort", "-descending", "-values", "arrays/values.npy"], inp,
                    {"-out": a[idx], "-values-out": values[idx]}, {"n": n, "values": True})
        if name in SCAN_TYPES:
            if name == "f32":
                # Quarters from -8 to 8, whose sums are exact in any order
                # (the GPU adds in a tree): no infinities, NaNs or -0.0.
                a = (rng.integers(-32, 33, n) / 4.0).astype("<f4")
                inp = fx.save("arrays/f32_quarters.npy", a)
            sums = np.cumsum(a, dtype=a.dtype)  # wrapping, for the integers
            total = sums[-1].item()
            fx.case("scan_inclusive_" + name, ["scan", "-inclusive"], inp, {"-out": sums}, {"total": total, "n": n}, name == "u32")
            fx.case("scan_" + name, ["scan"], inp, {"-out": np.r_[np.zeros(1, a.dtype), sums[:-1]].astype(a.dtype)}, {"total": total})


def record_cases(fx, rng):
    """Every command that takes records on record arrays, by a field."""

    def kept(m):
        return np.flatnonzero(m)

    def split(m):
        return np.concatenate([np.flatnonzero(m), np.flatnonzero(~m)])

    def case(name, args, inp, a, idx, js, short=False):
        fx.case(name, args, inp, {"-out": whole(a, idx)}, js, short)

    # Particles: four float32 fields.
    parts_t = np.dtype([("x", "<f4"), ("y", "<f4"), ("z", "<f4"), ("life", "<f4")])
    parts = np.zeros(600, parts_t)
    for f in parts_t.names:
        parts[f] = f32_with_specials(rng, 600)
    inp = fx.save("records/parts.npy", parts)
    m = parts["life"] > 0
    case("compact_life", ["compact", "-key", "life", "-keep", "x > 0"], inp, parts, kept(m), {"kept": int(m.sum()), "field": "life"}, True)
    m = parts["life"] != 0  # NaN != 0 is true; -0.0 == 0.0
    case("split_life", ["split", "-key", "life", "-keep", "x != 0"], inp, parts, split(m), {"kept": int(m.sum()), "field": "life"})
    case("sort_life", ["sort", "-key", "life"], inp, parts, order(parts["life"]), {"field": "life", "n": 600})
    m = parts["x"] < -1
    m2 = ~m & (parts["x"] != 0)
    fx.case("partition3_x", ["partition3", "-key", "x", "-first", "x < -1", "-second", "x != 0"], inp,
            {"-out-first": whole(parts, kept(m)), "-out-second": whole(parts, kept(m2)), "-out-rest": whole(parts, kept(~m & ~m2))},
            {"first_count": int(m.sum()), "second_count": int(m2.sum()), "field": "x"})
    inp0 = fx.save("records/parts_empty.npy", parts[:0])
    case("sort_empty", ["sort", "-key", "z", "-descending"], inp0, parts[:0], [], {"n": 0, "field": "z"})

    # Packed (align=False): 10-byte records, the key at byte 1.
    packed_t = np.dtype([("flag", "u1"), ("depth", "<f4"), ("id", "<u2"), ("tag", "S3")])
    packed = np.zeros(777, packed_t)
    packed["flag"] = rng.integers(0, 256, 777)
    packed["depth"] = f32_with_specials(rng, 777)
    packed["id"] = np.arange(777)
    packed["tag"] = [b"abc", b"de", b"", b"xyz"] * 194 + [b"q"]
    inp = fx.save("records/packed.npy", packed)
    case("sort_depth_desc", ["sort", "-key", "depth", "-descending"], inp, packed, order(packed["depth"], True), {"field": "depth"}, True)
    m = packed["depth"] != 0  # NaN is nonzero; -0.0 is not
    case("compact_nonzero_inplace", ["compact", "-key", "depth", "-keep", "nonzero", "-inplace"], inp, packed, kept(m),
         {"kept": int(m.sum()), "field": "depth"})

    # align=True, nested, a sub-array, a title, a big-endian field riding
    # along, names outside ASCII (Latin-1 and not).
    nested_t = np.dtype([("pos", [("x", "<f4"), ("y", "<f4"), ("z", "<f4")]), ("vel", "<f4", (3,)), ("flag", "u1"),
                         ("id", "<u8"), ("key", "<i4"), ("be", ">f8"), ("é", "<i2"), (("a title", "t"), "<u4"), ("μ", "u1")],
                        align=True)
    nested = np.zeros(300, nested_t)
    for f in ("x", "y", "z"):
        nested["pos"][f] = f32_with_specials(rng, 300)
    nested["vel"] = rng.standard_normal((300, 3))
    nested["flag"] = rng.integers(0, 256, 300)
    nested["id"] = rng.integers(0, 1 << 63, 300, dtype=np.uint64) | (rng.integers(0, 2, 300, dtype=np.uint64) << np.uint64(63))
    nested["key"] = rng.integers(-1000, 1000, 300)
    nested["be"] = rng.standard_normal(300)
    nested["é"] = rng.integers(-30000, 30000, 300)
    nested["t"] = np.arange(300)
    nested["μ"] = rng.integers(0, 256, 300)
    inp = fx.save("records/nested.npy", nested)
    mask = rng.integers(0, 2, 300).astype(bool)
    flags = fx.save("records/nested_mask.npy", mask)
    case("split_flags", ["split", "-key", "pos.z", "-flags", flags], inp, nested, split(mask), {"kept": int(mask.sum()), "field": "pos.z"}, True)
    case("sort_key_bits", ["sort", "-key", "key", "-bits", "2:9"], inp, nested, order(nested["key"], bits=(2, 9)), {"field": "key"})
    case("sort_id_desc", ["sort", "-key", "id", "-descending"], inp, nested, order(nested["id"], True), {"field": "id"})
    m = nested["id"] >= np.uint64(1 << 62)
    case("compact_id", ["compact", "-key", "id", "-keep", "x >= 0x4000000000000000"], inp, nested, kept(m), {"kept": int(m.sum()), "field": "id"})

    # Explicit offsets and itemsize: a u32 key at byte 2 (the GPU's slot
    # shifts it), a float64 at byte 8, 18-byte records.
    offs_t = np.dtype({"names": ["a", "k", "d"], "formats": ["<u2", "<u4", "<f8"], "offsets": [0, 2, 8], "itemsize": 18})
    offs = np.zeros(300, offs_t)
    offs["a"] = np.arange(300)
    offs["k"] = rng.integers(0, 64, 300)
    offs["d"] = rng.standard_normal(300)
    offs["d"][::29] = np.nan
    inp = fx.save("records/offsets.npy", offs)
    case("sort_offsets", ["sort", "-key", "k"], inp, offs, order(offs["k"]), {"field": "k"}, True)
    m = offs["d"] < 0.5
    case("compact_d", ["compact", "-key", "d", "-keep", "x < 0.5"], inp, offs, kept(m), {"kept": int(m.sum()), "field": "d"})
    # The same sorted by k: runs of equal keys, for unique and rle.
    offs_runs = whole(offs, order(offs["k"]))
    inp = fx.save("records/offsets_sorted.npy", offs_runs)
    starts = run_starts(offs_runs["k"])
    lengths = np.diff(np.r_[starts, len(offs_runs)]).astype("<u4")
    case("unique_offsets", ["unique", "-key", "k"], inp, offs_runs, starts, {"runs": len(starts), "field": "k"}, True)
    fx.case("rle_offsets", ["rle", "-key", "k"], inp, {"-out": whole(offs_runs, starts), "-lengths": lengths}, {"runs": len(starts), "field": "k"})


def toolbox_cases(fx, rng):
    """reduce, histogram, gather, scatter and sort -argsort on plain
    arrays and records, each against NumPy's own function."""
    n = 1001
    u32 = rng.integers(0, 1 << 32, n, dtype=np.uint64).astype("<u4")
    i32 = rng.integers(-(1 << 31), 1 << 31, n).astype("<i4")
    u64 = rng.integers(0, 1 << 64, n, dtype=np.uint64).astype("<u8")
    # Quarters from -8 to 8, whose sums are exact in any order (the GPU
    # adds in a tree, NumPy pairwise).
    f32 = (rng.integers(-32, 33, n) / 4.0).astype("<f4")
    # One NaN (a quiet one: its bits are the result's), which min, max
    # and their args return.
    f32nan = f32.copy()
    f32nan[617] = np.nan
    arrays = {"u32": u32, "i32": i32, "u64": u64, "f32": f32, "f32nan": f32nan}
    ins = {k: fx.save("arrays/reduce_%s.npy" % k, a) for k, a in arrays.items()}

    def value(v):
        v = v.item()
        return "NaN" if v != v else v

    for name, a in arrays.items():
        inp = ins[name]
        if name != "f32nan":
            s = np.add.reduce(a, dtype=a.dtype, keepdims=True)  # wrapping, for the integers
            fx.case("reduce_sum_" + name, ["reduce"], inp, {"-out": s}, {"value": value(s[0]), "n": n, "over": "all"}, name == "u32")
        for op, f in (("min", np.minimum.reduce), ("max", np.maximum.reduce)):
            r = f(a, keepdims=True)
            fx.case("reduce_%s_%s" % (op, name), ["reduce", "-op", op], inp, {"-out": r}, {"value": value(r[0])}, name == "f32nan")
        for op, f in (("argmin", np.argmin), ("argmax", np.argmax)):
            i = f(a, keepdims=True).astype("<u4")
            fx.case("reduce_%s_%s" % (op, name), ["reduce", "-op", op], inp, {"-out": i}, {"index": int(i[0]), "value": value(a[i[0]])})

    # Within segments: -segment as np.add.reduceat; offsets with empty
    # segments and elements outside them, each segment by a loop.
    starts = np.arange(0, n, 100)
    fx.case("reduce_segment_u32", ["reduce", "-segment", "100"], ins["u32"], {"-out": np.add.reduceat(u32, starts, dtype=u32.dtype)},
            {"segments": len(starts), "over": "segments"}, True)
    fx.case("reduce_segment_f32", ["reduce", "-segment", "100", "-op", "max"], ins["f32"], {"-out": np.maximum.reduceat(f32, starts)},
            {"segments": len(starts)})
    offs = np.array([3, 3, 40, 41, 41, 500, 999], "<u4")
    offsets = fx.save("arrays/reduce_offsets.npy", offs)
    ident = {"sum": 0, "min": np.iinfo(np.int32).max, "max": np.iinfo(np.int32).min}
    for op, f in (("sum", np.add.reduce), ("min", np.minimum.reduce), ("max", np.maximum.reduce)):
        want = np.array([f(i32[a:b], dtype=i32.dtype) if b > a else ident[op] for a, b in zip(offs[:-1], offs[1:])], "<i4")
        fx.case("reduce_offsets_%s_i32" % op, ["reduce", "-offsets", offsets, "-op", op], ins["i32"], {"-out": want},
                {"segments": len(offs) - 1, "longest_segment": int(np.diff(offs).max())})

    # By key: runs of equal keys (u32; f32 with NaNs and signed zeros,
    # each NaN a run of its own and -0.0 equal to 0.0; u64), the values
    # of each run reduced: np.add.reduceat from the runs' starts.
    keys = {"u32": np.array(runs_of(rng, list(range(0, 4000, 97)), n), "<u4"),
            "f32": f32_with_specials(rng, n, 2.0),
            "u64": np.array(runs_of(rng, [0, 1, (1 << 64) - 1, 1 << 40, 12345], n), "<u8")}
    for kn, k in keys.items():
        kin = fx.save("arrays/keys_%s.npy" % kn, k)
        st = run_starts(k)
        js = {"runs": len(st), "keys_type": kn, "over": "keys"}
        fx.case("reduce_bykey_sum_%s_u32" % kn, ["reduce", "-keys", kin], ins["u32"],
                {"-out": np.add.reduceat(u32, st, dtype=u32.dtype), "-keys-out": k[st]}, js, kn == "u32")
        fx.case("reduce_bykey_max_%s_i32" % kn, ["reduce", "-keys", kin, "-op", "max"], ins["i32"],
                {"-out": np.maximum.reduceat(i32, st), "-keys-out": k[st]}, js)
        fx.case("reduce_bykey_min_%s_f32" % kn, ["reduce", "-keys", kin, "-op", "min"], ins["f32"],
                {"-out": np.minimum.reduceat(f32, st)}, js)
    fx.case("reduce_bykey_sum_u32_f32", ["reduce", "-keys", "arrays/keys_u32.npy"], ins["f32"],
            {"-out": np.add.reduceat(f32, run_starts(keys["u32"]))}, {"runs": len(run_starts(keys["u32"]))})

    # Histograms, np.histogram's counts: even bins where CUB's rule and
    # NumPy's agree (a power of two of bins over [0, 2^k)), NumPy's own
    # edges (-numpy) over awkward ranges, and edges from a file.
    hu = rng.integers(0, 300, n).astype("<u4")
    hi = rng.integers(-20, 20, n).astype("<i4")
    hf = rng.standard_normal(n).astype("<f4")
    hf[::50] = 1.0  # the upper edge of [0, 1): the last bin with -include-upper
    hf[7] = np.nan
    hins = {k: fx.save("arrays/samples_%s.npy" % k, a) for k, a in (("u32", hu), ("i32", hi), ("f32", hf))}

    def hist(a, *args, **kw):
        return np.histogram(a[a == a], *args, **kw)[0].astype("<u4")

    def counted(c):
        return {"counted": int(c.sum())}

    c = hist(hu, 16, range=(0, 256))
    fx.case("histogram_u32", ["histogram", "-bins", "16", "-range", "0:256", "-include-upper"], hins["u32"], {"-out": c}, counted(c), True)
    c = hist(hf, 256, range=(0, 1))
    fx.case("histogram_f32_upper", ["histogram", "-bins", "256", "-range", "0:1", "-include-upper"], hins["f32"], {"-out": c}, counted(c))
    c = hist(hi, 7, range=(-7, 13))
    fx.case("histogram_numpy_i32", ["histogram", "-bins", "7", "-range", "-7:13", "-numpy"], hins["i32"], {"-out": c}, counted(c))
    c = hist(hu, 100, range=(3, 250))
    fx.case("histogram_numpy_u32", ["histogram", "-bins", "100", "-range", "3:250", "-numpy"], hins["u32"], {"-out": c}, counted(c))
    c = hist(hf, 50, range=(-2.5, 3.1))
    fx.case("histogram_numpy_f32", ["histogram", "-bins", "50", "-range", "-2.5:3.1", "-numpy"], hins["f32"], {"-out": c}, counted(c), True)
    edges = np.array([-3, -1, -0.5, -0.5, 0, 0.25, 1, 2.75], "<f4")
    c = hist(hf, bins=edges)
    fx.case("histogram_edges_f32", ["histogram", "-edges", fx.save("arrays/edges_f32.npy", edges), "-include-upper"], hins["f32"],
            {"-out": c}, counted(c))
    edges = np.array([-20, -5, 0, 1, 19], "<i4")
    c = np.array([((hi >= a) & (hi < b)).sum() for a, b in zip(edges[:-1], edges[1:])], "<u4")  # CUB's rule: 19 counts nowhere
    fx.case("histogram_edges_i32", ["histogram", "-edges", fx.save("arrays/edges_i32.npy", edges)], hins["i32"], {"-out": c}, counted(c))

    # Gather (np.take, repeated indices, int64 as NumPy makes them) and
    # scatter (out[indices] = a: a permutation into zeros, and distinct
    # indices into a larger array, -into).
    idx = fx.save("arrays/take_indices.npy", rng.integers(0, n, 1500))
    take = np.load(fx.path(idx))
    perm = rng.permutation(n)
    pin = fx.save("arrays/permutation.npy", perm.astype("<u4"))
    into = rng.standard_normal(2000)
    slots = rng.choice(2000, n, replace=False)
    for name in ("u32", "f32", "u64", "i64", "f64"):
        a = np.load(fx.path("arrays/%s.npy" % name))
        inp = "arrays/%s.npy" % name
        fx.case("gather_" + name, ["gather", "-indices", idx], inp, {"-out": np.take(a, take)}, {"indices": len(take), "out": len(take)}, name == "f64")
        out = np.zeros_like(a)
        out[perm] = a
        fx.case("scatter_" + name, ["scatter", "-indices", pin], inp, {"-out": out}, {"out": n})
    a = np.load(fx.path("arrays/f64.npy"))
    base = into.astype("<f8")
    intoin = fx.save("arrays/into_f64.npy", base)
    out = base.copy()
    out[slots] = a
    fx.case("scatter_into_f64", ["scatter", "-indices", fx.save("arrays/slots.npy", slots.astype("<i4")), "-into", intoin], "arrays/f64.npy",
            {"-out": out}, {"out": 2000, "into": True}, True)

    # Records, moved whole: gathered by a field's stable order (a sort by
    # key reordering the whole record), and scattered back by it.
    for rname, field in (("packed", "depth"), ("nested", "key")):
        r = np.load(fx.path("records/%s.npy" % rname))
        o = order(r[field])
        oin = fx.save("records/%s_order.npy" % rname, o)
        fx.case("gather_" + rname, ["gather", "-indices", oin], "records/%s.npy" % rname, {"-out": whole(r, o)}, {"records": True}, True)
        sorted_ = whole(r, o)
        sin = fx.save("records/%s_sorted.npy" % rname, sorted_)
        fx.case("scatter_" + rname, ["scatter", "-indices", oin], sin, {"-out": r}, {"records": True})

    # Argsort: the stable order of each key type's keys (floats by
    # totalOrder), as uint32.
    for name in SORTED_TYPES:
        a = np.load(fx.path("arrays/%s.npy" % name))
        fx.case("argsort_" + name, ["sort", "-argsort"], "arrays/%s.npy" % name, {"-out": order(a).astype("<u4")}, {"argsort": True}, name == "f32")
    a = np.load(fx.path("arrays/i32.npy"))
    fx.case("argsort_desc_i32", ["sort", "-argsort", "-descending"], "arrays/i32.npy", {"-out": order(a, descending=True).astype("<u4")}, {"n": n})


def scan_cases(fx):
    """scan -op min and max (np.minimum.accumulate, np.maximum.accumulate)
    and scan -keys (each run of equal keys scanned on its own), on the
    reductions' arrays and keys. The float32 values are quarters (sums
    exact in any order) with no -0.0 and, but for one case, no NaN: the
    scans' min and max follow Go's (-0.0 below +0.0) where NumPy's keep
    the first of equal zeros, so the data has no signed zeros to tie. The
    one NaN (reduce_f32nan, a single quiet NaN) makes every later min or
    max that NaN, its bits the same in both. The inputs are the
    reductions' files: no random numbers are drawn."""
    arrays = {k: np.load(fx.path("arrays/reduce_%s.npy" % k)) for k in ("u32", "i32", "f32", "f32nan")}

    def identity(a, op):
        if op == "sum":
            return a.dtype.type(0)
        if a.dtype.kind == "f":
            return a.dtype.type(np.inf if op == "min" else -np.inf)
        info = np.iinfo(a.dtype)
        return a.dtype.type(info.max if op == "min" else info.min)

    accumulate = {"sum": lambda a: np.cumsum(a, dtype=a.dtype), "min": np.minimum.accumulate, "max": np.maximum.accumulate}

    def scanned(a, op, inclusive):
        if len(a) == 0:
            return a.copy()
        acc = accumulate[op](a)
        if inclusive:
            return acc
        return np.concatenate([np.array([identity(a, op)], a.dtype), acc[:-1]])

    def value(v):
        v = v.item()
        return "NaN" if v != v else v

    for name, op, inclusive, short in (("u32", "min", False, True), ("u32", "max", True, False), ("i32", "min", True, False),
                                       ("i32", "max", False, False), ("f32", "min", True, False), ("f32", "max", False, True),
                                       ("f32nan", "max", True, False), ("f32nan", "min", False, False)):
        a = arrays[name]
        args = ["scan", "-op", op] + (["-inclusive"] if inclusive else [])
        fx.case("scan_%s%s_%s" % (op, "_inclusive" if inclusive else "", name), args, "arrays/reduce_%s.npy" % name,
                {"-out": scanned(a, op, inclusive)}, {"total": value(accumulate[op](a)[-1]), "operation": op, "inclusive": inclusive}, short)

    # By key: each run of equal keys (run_starts: -0.0 equals 0.0, each
    # NaN a run of its own) scanned on its own; the exclusive sum of
    # uint32 values is CUB's ExclusiveSumByKey.
    def by_key(k, a, op, inclusive):
        starts = run_starts(k)
        ends = np.r_[starts[1:], len(k)]
        return np.concatenate([scanned(a[s:e], op, inclusive) for s, e in zip(starts, ends)] + [a[:0]])

    for kn in ("u32", "f32", "u64"):
        k = np.load(fx.path("arrays/keys_%s.npy" % kn))
        kin = "arrays/keys_%s.npy" % kn
        for vn, op, inclusive in (("u32", "sum", False), ("i32", "max", True), ("f32", "min", False)):
            args = ["scan", "-keys", kin, "-op", op] + (["-inclusive"] if inclusive else [])
            fx.case("scan_bykey_%s%s_%s_%s" % (op, "_inclusive" if inclusive else "", kn, vn), args, "arrays/reduce_%s.npy" % vn,
                    {"-out": by_key(k, arrays[vn], op, inclusive)}, {"keys_type": kn, "operation": op, "inclusive": inclusive}, vn == "u32")
    fx.case("scan_bykey_sum_inclusive_u32_f32", ["scan", "-keys", "arrays/keys_u32.npy", "-inclusive"], "arrays/reduce_f32.npy",
            {"-out": by_key(np.load(fx.path("arrays/keys_u32.npy")), arrays["f32"], "sum", True)}, {"keys_type": "u32", "operation": "sum"})


def unique_values_cases(fx, rng):
    """unique -values (unique by key) on sorted keys: np.unique(keys,
    return_index=True), whose indices (the first of each group of equal
    keys: with return_index NumPy sorts stably) give the kept keys and
    values. The float keys have -0.0 beside 0.0, which both count equal,
    and no NaN, which np.unique would gather into one group where each NaN
    is a run of its own."""
    n = 1001

    def kept(keys):
        return np.unique(keys, return_index=True)[1]

    k32 = np.sort(rng.integers(0, 300, n)).astype("<u4")
    kf64 = np.sort(rng.integers(-40, 41, n) / 8.0).astype("<f8")
    kf64[kf64 == 0] = np.where(rng.integers(0, 2, int((kf64 == 0).sum())) == 1, -0.0, 0.0)  # zeros of both signs, mixed
    ki32 = np.sort(rng.integers(-(1 << 31), 1 << 31, n)).astype("<i4")
    ki32[1::3] = ki32[0::3][:len(ki32[1::3])]  # pairs of equal keys, still sorted
    kf32 = np.sort(rng.integers(-20, 21, n) / 4.0).astype("<f4")
    cases = (("u32", k32, "reduce_f32"), ("f64", kf64, "reduce_u64"), ("i32", ki32, "i64"), ("f32", kf32, "values"))
    for kn, k, vn in cases:
        kin = fx.save("arrays/sorted_%s.npy" % kn, k)
        v = np.load(fx.path("arrays/%s.npy" % vn))
        idx = kept(k)
        fx.case("unique_values_%s_%s" % (kn, vn), ["unique", "-values", "arrays/%s.npy" % vn], kin,
                {"-out": k[idx], "-values-out": v[idx]}, {"runs": len(idx), "total": n, "values_type": {"<f4": "f32", "<u8": "u64", "<i8": "i64", "<u4": "u32"}[v.dtype.str]},
                kn in ("u32", "f64"))

    # Records by a field: the sorted records' first of each run of k, and
    # a value per record beside them.
    r = np.load(fx.path("records/offsets_sorted.npy"))
    rv = fx.save("records/offsets_values.npy", rng.standard_normal(len(r)).astype("<f4"))
    idx = kept(r["k"])
    fx.case("unique_values_offsets", ["unique", "-key", "k", "-values", rv], "records/offsets_sorted.npy",
            {"-out": whole(r, idx), "-values-out": np.load(fx.path(rv))[idx]}, {"runs": len(idx), "field": "k", "values_type": "f32"}, True)


def bad_inputs(fx):
    """Record arrays the commands refuse, as NumPy writes them; the test
    names the messages."""
    fx.save("bad/bigendian.npy", np.zeros(3, [("x", ">f4"), ("y", "<f4")]))
    fx.save("bad/object.npy", np.zeros(3, [("o", "O"), ("x", "<f4")]), allow_pickle=True)
    fx.save("bad/subarray.npy", np.zeros(3, [("v", "<f4", (3,)), ("k", "<u4")]))
    fx.save("bad/wide.npy", np.zeros(3, [("a", "V256"), ("k", "<u4")]))
    fx.save("bad/types.npy", np.zeros(3, [("h", "<f2"), ("s", "S4"), ("i", "<i8")]))
    fx.save("bad/2d.npy", np.zeros((2, 3), [("x", "<f4"), ("y", "<f4"), ("z", "<f4"), ("life", "<f4")]))


def main():
    if len(sys.argv) > 2 or sys.argv[1:2] in (["-h"], ["--help"]):
        print(__doc__, file=sys.stderr)
        return 2
    d = sys.argv[1] if len(sys.argv) == 2 else os.path.dirname(os.path.abspath(__file__))
    fx = Fixtures(d)
    plain_cases(fx, np.random.default_rng(48))
    record_cases(fx, np.random.default_rng(39))
    toolbox_cases(fx, np.random.default_rng(49))
    scan_cases(fx)
    unique_values_cases(fx, np.random.default_rng(51))
    bad_inputs(fx)
    fx.write_cases()
    return 0


if __name__ == "__main__":
    sys.exit(main())
