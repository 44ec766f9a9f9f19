"""Where pad32's and crop_mirror_normalize's instructions go on the H200
(issue 12): Pipe's generated entries against the same source with one
thing changed.

- pad32's span entry selects each of a group's 24 bytes between the
  loaded pixel and the fill (the pad's test of each pixel's coordinates).
  A group whose first and last pixels are inside is inside throughout
  (each test compares a coordinate that steps by one), so the variant
  tests the ends once and copies the loaded bytes.
- crop_mirror_normalize's vector entry divides each of its 12 elements by
  its plane's std (IEEE division, ~10 instructions each). The variant
  divides through the correctly rounded reciprocal, found once a plane,
  and two fma corrections (exact where the operands' exponents are
  moderate: Markstein's theorem), falling back to the division elsewhere.

- pad32's span entry with its divisors passed as the runtime passes them
  (by value, in the parameter space) against through a pointer (as the
  other micros pass them, CuPy passing no structs by value).

Results are checked against Pipe's own entries; timing as layout_shapes.py.
What it found (H200, 2026-11-28, bench/NOTES.md): neither variant gains,
and the divisors' passing moved pad32 from 90.1% to 87.2% of copy through
the registers ptxas gave the entry.

    python3 bench/micro/select_paths.py [PIPEC]   (default: .device's)
"""
import sys

import cupy as cp
import numpy as np

import layout_shapes as shapes
from warp_staging import divisors_by_pointer, entry, generate

DIVISION = r"""
// q = a / b, correctly rounded, given y = RN(1/b): q0 = RN(a y) is within
// 2 ulps, one correction brings it within one, and a second is exact by
// Markstein's theorem. Exact products need moderate exponents: elsewhere
// (and for zeros, whose sign the corrections lose) the IEEE division.
__device__ __forceinline__ float hand_div_by(float a, float b, float y) {
  const float m = fabsf(a);
  if (!(m >= 0x1p-40f && m <= 0x1p40f && fabsf(b) >= 0x1p-40f &&
        fabsf(b) <= 0x1p40f))
    return a / b;
  float q = a * y;
  q = __fmaf_rn(__fmaf_rn(-b, q, a), y, q);
  return __fmaf_rn(__fmaf_rn(-b, q, a), y, q);
}
"""


def variant(source, name, suffix, edits):
    text = entry(source, name).replace(f"{name}(", f"{name}_{suffix}(")
    for old, new in edits:
        assert old in text, old
        text = text.replace(old, new)
    return text


def pad_ends(src):
    """pad32's span entry as `pad32_k0_span_ends`: the group's ends tested
    once, the loaded bytes copied where both are inside."""
    loop = src[src.index("    alignas(16) pipe_u8 r0[24];\n",
                         src.index("pad32_k0_span(")):]
    loop = loop[:loop.index("    pipe_store_vec(out0 + i0, r0);\n")]
    inside = ("    alignas(16) pipe_u8 r0[24];\n"
              "    if ((J)q1[0] < (J)d_H && (J)q2[0] < (J)d_W &&\n"
              "        (J)q1[7] < (J)d_H && (J)q2[7] < (J)d_W) {\n"
              "#pragma unroll\n"
              "      for (int j = 0; j < 24; ++j) r0[j] = g0[j];\n"
              "    } else {\n" + loop.replace(
                  "    alignas(16) pipe_u8 r0[24];\n", "") + "    }\n")
    return variant(src, "pad32_k0_span", "ends", [(loop, inside)])


def cmn_divisions(src, name):
    """crop_mirror_normalize's vector entry `name` with its division
    through the reciprocal (exact), times it (inexact), and left out."""
    return (DIVISION +
            variant(src, name, "rcp", [(
                "pipe_div(v3, v4)", "hand_div_by(v3, v4, __frcp_rn(v4))")]) +
            variant(src, name, "mul", [("pipe_div(v3, v4)",
                                        "(v3 * __frcp_rn(v4))")]) +
            variant(src, name, "nodiv", [("pipe_div(v3, v4)", "v3")]))


def divisors_as_scalars(source, name, suffix):
    """`name` as `name_suffix` with its divisors as eight scalar parameters,
    which sit in the parameter space as the runtime's struct does (CuPy
    passes no structs by value)."""
    text = entry(source, name).replace(f"{name}(", f"{name}_{suffix}(")
    old = "const pipe_divisors<4> *__restrict__ divisors_at) {\n" \
          "  const pipe_divisors<4> dim_divisors = *divisors_at;"
    assert old in text
    return text.replace(old, ", ".join(
        [f"unsigned m{i}" for i in range(4)] +
        [f"unsigned s{i}" for i in range(4)]) + ") {\n"
        "  const pipe_divisors<4> dim_divisors = {{m0, m1, m2, m3}, "
        "{s0, s1, s2, s3}};")


def main():
    pipec = sys.argv[1] if len(sys.argv) > 1 else shapes.PIPEC
    shapes.FLUSH = shapes.flush_buffer()
    copy_tbs = shapes.copy_bandwidth()
    hand = cp.RawModule(code=shapes.HAND, options=shapes.OPTIONS)
    copy16 = hand.get_function("copy16")
    rng = np.random.default_rng(2)

    def run_in_turns(module, entries, grid, args, out, want, nbytes,
                     reps=3):
        launches = [("copy of the same bytes",
                     shapes.copy_launch(copy16, nbytes))]
        for label, name, *own in entries:
            f = module.get_function(name)
            a = own[0] if own else args
            launches.append((label, lambda f=f, a=a: f(grid, (256,), a)))
        for _ in range(reps):
            for label, launch in launches:
                if label.startswith("copy"):
                    shapes.report(label, shapes.time_ms(launch), nbytes,
                                  copy_tbs)
                else:
                    shapes.checked(label, launch, out, want, nbytes,
                                   copy_tbs)

    # pad32
    src = divisors_by_pointer(generate(pipec, "pad32"))
    by_value = divisors_as_scalars(src, "pad32_k0_span", "by_value")
    extra = pad_ends(src) + by_value + by_value.replace(
        "_by_value(", "_by_value6(").replace("__launch_bounds__(256)",
                                             "__launch_bounds__(256, 6)")
    m = cp.RawModule(code=src + extra, options=shapes.OPTIONS)
    pad = shapes.pad32_case(rng)
    y, want, n, nbytes, args = pad.y, pad.want, pad.n, pad.nbytes, pad.args
    print(f"\npad32, {nbytes / 1e6:.1f} MB")
    run_in_turns(m, [("pipe span", "pad32_k0_span"),
                     ("ends tested, bytes copied", "pad32_k0_span_ends")],
                 shapes.blocks(n, 24), args, y, want, nbytes)
    div = shapes.divisors(pad.divisor_dims).get()
    by_value = args[:-1] + tuple(np.uint32(v) for v in div)
    run_in_turns(m, [("pipe span, divisors by value",
                      "pad32_k0_span_by_value", by_value),
                     ("same, 6 blocks an SM asked",
                      "pad32_k0_span_by_value6", by_value)],
                 shapes.blocks(n, 24), args, y, want, nbytes, reps=2)
    del pad, y, want, args

    # crop_mirror_normalize (clamp)
    src = divisors_by_pointer(generate(pipec, "cmn"))
    name = "crop_mirror_normalize_k0_vec"
    m = cp.RawModule(code=src + cmn_divisions(src, name),
                     options=shapes.OPTIONS)
    c = shapes.cmn_case(rng)
    out, n, nbytes, args = c.out, c.n, c.nbytes, c.args
    grid = shapes.blocks(n, 12)
    m.get_function(name)(grid, (256,), args)
    want = out.copy()
    print(f"\ncrop_mirror_normalize (clamp), {nbytes / 1e6:.1f} MB")
    run_in_turns(m, [("pipe vec", name), ("reciprocal + 2 fma", name + "_rcp")],
                 grid, args, out, want, nbytes)
    for _ in range(2):
        for label, suffix in [("times the reciprocal (inexact)", "_mul"),
                              ("no division (bound)", "_nodiv")]:
            f = m.get_function(name + suffix)
            shapes.report(label, shapes.time_ms(
                lambda: f(grid, (256,), args)), nbytes, copy_tbs)


if __name__ == "__main__":
    sys.exit(main())
