# cascade: plain data across the boundary between the program and the tests.
#
# Only exact built-in types cross, checked with `type(x) is T` (never isinstance), so
# a subclass of int or an object with its own __eq__ never reaches a comparison:
# None, bool, int, float, complex, str, bytes, bytearray, list, tuple, dict, set and
# frozenset, nested up to _MAX_DEPTH levels. One JSON document per line; containers
# other than list are tagged objects ({"tuple": [...]}, {"dict": [[k, v], ...]}), and
# ints beyond 64 bits are hex strings (no digit limit). Decoding rebuilds fresh objects
# from the parsed JSON, so what the receiver holds is its own data.
import json


def send_line(write, obj):
    """Writes one JSON message (ASCII, no raw newline) to fd 1."""
    write(1, (json.dumps(obj, separators=(",", ":")) + "\n").encode())


class LineReader:
    """Messages from fd 0, one JSON document per line; None at end of file."""

    def __init__(self, read):
        self.read, self.rest = read, b""

    def next(self):
        parts, chunk = [], self.rest
        while b"\n" not in chunk:
            parts.append(chunk)
            chunk = self.read(0, 1 << 16)
            if not chunk:
                self.rest = b""
                return None
        head, self.rest = chunk.split(b"\n", 1)
        parts.append(head)
        return json.loads(b"".join(parts))

_MAX_DEPTH = 200
_SMALL_INT = 1 << 64


class NotPlain(Exception):
    """A value that is not plain data (the reason is the message)."""


def _plain_encode(x, depth=0):
    t = type(x)
    if x is None or t is bool or t is str or t is float:
        return x
    if t is int:
        return x if -_SMALL_INT < x < _SMALL_INT else {"int": hex(x)}
    if depth >= _MAX_DEPTH:
        raise NotPlain("a value nested more than %d levels deep" % _MAX_DEPTH)
    d = depth + 1
    if t is list:
        return [_plain_encode(v, d) for v in x]
    if t is tuple:
        return {"tuple": [_plain_encode(v, d) for v in x]}
    if t is dict:
        return {"dict": [[_plain_encode(k, d), _plain_encode(v, d)] for k, v in dict.items(x)]}
    if t is set or t is frozenset:
        return {t.__name__: [_plain_encode(v, d) for v in x]}
    if t is bytes or t is bytearray:
        return {t.__name__: t.hex(x)}
    if t is complex:
        return {"complex": [complex.real.__get__(x), complex.imag.__get__(x)]}
    raise NotPlain("a value of type %s" % _plain_type_name(x))


def _plain_type_name(x):
    t = type(x)
    try:
        name = type.__dict__["__qualname__"].__get__(t)
        module = type.__dict__["__module__"].__get__(t)
    except BaseException:
        return "?"
    if type(name) is not str or type(module) is not str:
        return "?"
    return name if module == "builtins" else module + "." + name


def plain_encode(x):
    """The JSON-ready form of a plain value; raises NotPlain for anything else."""
    try:
        return _plain_encode(x)
    except RecursionError:
        raise NotPlain("a value nested too deeply") from None


class Malformed(Exception):
    """Bytes that do not decode to plain data."""


def _plain_decode(x, depth=0):
    t = type(x)
    if x is None or t is bool or t is str or t is float or t is int:
        return x
    if depth >= _MAX_DEPTH + 1:
        raise Malformed("nested too deeply")
    d = depth + 1
    if t is list:
        return [_plain_decode(v, d) for v in x]
    if t is not dict or len(x) != 1:
        raise Malformed("unexpected %s" % t.__name__)
    ((tag, v),) = x.items()
    if tag == "int" and type(v) is str:
        return int(v, 16)
    if tag in ("bytes", "bytearray") and type(v) is str:
        return (bytes if tag == "bytes" else bytearray).fromhex(v)
    if type(v) is not list:
        raise Malformed("tag %r without a list" % (tag,))
    if tag == "tuple":
        return tuple(_plain_decode(e, d) for e in v)
    if tag == "set":
        return set(_plain_decode(e, d) for e in v)
    if tag == "frozenset":
        return frozenset(_plain_decode(e, d) for e in v)
    if tag == "dict":
        out = {}
        for pair in v:
            if type(pair) is not list or len(pair) != 2:
                raise Malformed("dict entry is not a pair")
            out[_plain_decode(pair[0], d)] = _plain_decode(pair[1], d)
        return out
    if tag == "complex" and len(v) == 2 and all(type(p) in (int, float) for p in v):
        return complex(v[0], v[1])
    raise Malformed("unknown tag %r" % (tag,))


def plain_decode(x):
    """The plain value of parsed JSON from plain_encode; raises Malformed otherwise."""
    try:
        return _plain_decode(x)
    except Malformed:
        raise
    except (ValueError, TypeError, RecursionError, MemoryError) as e:
        raise Malformed("%s: %s" % (type(e).__name__, e)) from None
