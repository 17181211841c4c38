from torchferry.check.flow.lattice import (
    ACCEL,
    BOTTOM,
    CPU,
    KIND_CAP,
    ORIGIN_CAP,
    PLACE_CAP,
    SLOT_CAP,
    UNKNOWN,
    Basis,
    Kind,
    Op,
    Origin,
    Place,
    Value,
    Where,
    container,
    element,
    join,
    join_all,
    param,
    substitute,
)


def test_join_keeps_both_places():
    v = join(Value.of(Kind.TENSOR, CPU), Value.of(Kind.TENSOR, ACCEL))
    assert v.places == {CPU, ACCEL} and v.is_(Kind.TENSOR)
    assert v.may_live(Where.ACCEL) and not v.only(Where.CPU)


def test_bottom_is_neutral_and_unknown_absorbs():
    t = Value.of(Kind.TENSOR, CPU)
    assert join(BOTTOM, t) == t and join(t, BOTTOM) == t
    assert join(t, UNKNOWN).places is None and join(t, UNKNOWN).kinds is None


def test_caps_overflow_to_unknown():
    kinds = [Value.of(k) for k in list(Kind)[: KIND_CAP + 1]]
    assert join_all(kinds).kinds is None
    places = [Value.of(Kind.TENSOR, param(k)) for k in range(PLACE_CAP + 1)]
    assert join_all(places).places is None


def test_basis_is_the_weakest():
    a = Value.of(Kind.TENSOR, CPU, basis=Basis.CONSTRUCTED)
    b = Value.of(Kind.TENSOR, CPU, basis=Basis.HINT)
    assert join(a, b).basis is Basis.HINT


def test_tuples_join_per_element_and_collapse_on_length_mismatch():
    t = Value.of(Kind.TENSOR, CPU)
    g = Value.of(Kind.TENSOR, ACCEL)
    s = Value.of(Kind.SCALAR)
    same = join(container((t, s)), container((g, s)))
    assert same.elts is not None and same.elts[0].places == {CPU, ACCEL}
    mixed = join(container((t,)), container((g, s)))
    assert mixed.elts is None and element(mixed, 0).kinds == {Kind.TENSOR, Kind.SCALAR}


def test_dicts_per_literal_key_and_long_tuples_collapse():
    t = Value.of(Kind.TENSOR, CPU)
    d = container(keys=(("x", t), ("n", Value.of(Kind.SCALAR))))
    assert element(d, "x") == t and element(d, "n").is_(Kind.SCALAR)
    long = container(tuple(t for _ in range(SLOT_CAP + 1)))
    assert long.elts is None and element(long, 3) == t


def test_substitute_parameter_places():
    ret = Value.of(Kind.TENSOR, param(1))
    assert substitute(ret, {"1": Value.of(Kind.TENSOR, ACCEL)}).places == {ACCEL}
    assert substitute(ret, {}).places is None  # the argument is not known
    assert substitute(container((ret,)), {"1": Value.of(Kind.TENSOR, CPU)}).elts[0].places == {CPU}


def test_origins_are_capped_and_ordered_newest_first():
    o = [Origin(Op.MADE, n, 0, "x") for n in range(10)]
    v = Value.of(Kind.TENSOR, CPU, o[0])
    for x in o[1:]:
        v = v.with_origin(x)
    assert v.origins[0].line == 9 and len(v.origins) == ORIGIN_CAP == 8


def test_place_order_is_stable():
    assert sorted([Place(Where.ACCEL), Place(Where.CPU)])[0] == CPU
