"""Build a registered method from its name and parameters: :func:`construct_method` is the one place a method is
instantiated (the experiment harness, the batch engine and :func:`build_text_method` call it), and
:func:`build_text_method` the one builder of a ready text method (the API, the CLI, the check and its page)."""

from __future__ import annotations

from authorguard import registry
from authorguard.base import TextObfuscator
from authorguard.exceptions import InputError

#: what a text method may do with a record it could not protect (its ``fallback`` parameter)
FALLBACK_CHOICES = ("withhold", "keep", "view", "normalise")


def with_fallback(method: str, params: dict, fallback: str | None) -> dict:
    """``params`` with the method's ``fallback`` set to the command's, when the method has one and the config did
    not set it. ``fallback=None``: the method's own default if that never releases the input (anything but
    ``keep``), else ``withhold`` — so no command releases a record as written unless asked to."""
    from authorguard import registry

    if method not in registry.methods or "fallback" in params:
        return params
    cls = registry.methods.get(method)
    own = cls().get_params().get("fallback")
    if own is None:
        return params
    if fallback is None:
        fallback = own if own != "keep" else "withhold"
    return {**params, "fallback": fallback}


def check_parameters(name: str, keys, where: str | None = None, allowed: frozenset[str] = frozenset()) -> set[str]:
    """The parameters of the registered method ``name``; a key of ``keys`` it does not take (and not in
    ``allowed``) fails in one line naming the key (prefixed by ``where``: a config file and its table)."""
    known = set(registry.methods.get(name)().get_params())
    for key in keys:
        if key not in known and key not in allowed:
            prefix = f"{where}: " if where else ""
            raise InputError(
                f"{prefix}unknown parameter {key!r} for method {name!r} (known: {', '.join(sorted(known)) or 'none'})"
            )
    return known


def construct_method(name: str, params: dict, where: str | None = None, defaults: dict | None = None):
    """The registered method ``name`` (either kind) constructed, not fitted: ``params`` checked against its own
    (an unknown key fails in one line naming it, prefixed by ``where``), ``defaults`` under them."""
    check_parameters(name, params, where)
    return registry.methods.get(name)(**{**(defaults or {}), **params})


def build_text_method(
    name: str,
    params: dict,
    seed: int | None,
    model: str | None = None,
    *,
    epsilon: float | None = None,
    fallback: str | None = None,
    safe_fallback: bool = True,
):
    """A registered *text* method, fitted: the one builder the API, the CLI, the check and the page call.

    ``params`` are checked against the method's (unknown keys fail naming the key); ``epsilon`` (a DP method's
    document ε) and ``fallback`` (:data:`FALLBACK_CHOICES`; default :func:`with_fallback`'s, or with
    ``safe_fallback=False`` the method's own, as the writer's check keeps it) are set; seeded when
    it is random; ``model`` (a trained model folder) goes to methods that take one. A missing extra or weights
    fail in one line naming the method before the method's module is imported."""
    from authorguard.utils.extras import require_method
    from authorguard.utils.validation import check_option

    if fallback is not None:
        check_option(fallback, "fallback", "obfuscate", FALLBACK_CHOICES)
    if name in registry.methods:
        require_method(name, params)
    cls = registry.methods.get(name)
    if not issubclass(cls, TextObfuscator):
        raise InputError(
            f"method {name!r} does not rewrite text (it releases vectors): use authorguard syntf or anonymize, or "
            "the text method syntf-text"
        )
    params = dict(params)
    if epsilon is not None:
        if "epsilon" in params:
            raise InputError("epsilon is given twice (as an argument and in the parameters): give one")
        params["epsilon"] = epsilon
    if safe_fallback or fallback is not None:
        params = with_fallback(name, params, fallback)
    known = set(cls().get_params())
    if model is not None:
        if "model" not in known:
            takers = [n for n in registry.methods.names() if registry.methods.info(n).get("model")]
            raise InputError(f"method {name!r} takes no trained model (--model is for {', '.join(takers)})")
        params = {**params, "model": model}
    if seed is not None and "random_state" in known:
        params = {**params, "random_state": seed}
    return construct_method(name, params).fit()


def parse_method_spec(spec: str) -> tuple[str, dict]:
    """``"synonyms"`` -> ("synonyms", {}); ``"bottleneck(level=lemma)"`` -> ("bottleneck", {"level": "lemma"});
    numbers are read as numbers. A malformed spec is one line."""
    spec = spec.strip()
    if "(" not in spec:
        if not spec:
            raise InputError("an empty method name")
        return spec, {}
    if not spec.endswith(")"):
        raise InputError(f"method {spec!r}: write NAME or NAME(key=value, ...)")
    name, inner = spec[:-1].split("(", 1)
    params: dict = {}
    for part in filter(None, (p.strip() for p in inner.split(","))):
        key, sep, value = part.partition("=")
        if not sep or not key.strip():
            raise InputError(f"method {spec!r}: parameter {part!r} is not key=value")
        params[key.strip()] = _number_or_text(value.strip())
    return name.strip(), params


def _number_or_text(value: str):
    for kind in (int, float):
        try:
            return kind(value)
        except ValueError:
            pass
    return value
