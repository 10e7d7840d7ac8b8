#!/usr/bin/python3
"""Reads what `dbus-monitor` printed on the guest's system bus.

driver.py asserts on it how the daemon under test recovered (what it asked of BlueZ,
and what BlueZ said), between marks it puts on the bus (signals on MARK_IFACE, which
dbus-monitor records in order with everything else).
"""
import re

HEADER = re.compile(r"^(signal|method call|method return|error) ")
FIELD = re.compile(r"(\w+)=(\(null destination\)|[^ ;]+);?")
MARK_PATH = "/org/blectl/e2e"
MARK_IFACE = "org.blectl.E2E"
SCALARS = {"boolean": "b", "byte": "y", "int16": "n", "uint16": "q", "int32": "i",
           "uint32": "u", "int64": "x", "uint64": "t", "double": "d"}
QUOTED = (("string ", "s"), ("object path ", "o"), ("signature ", "g"))


class Message:
    """One message: header fields, and the body parsed on first use."""

    def __init__(self, kind, header, body):
        self.kind = kind
        fields = dict(FIELD.findall(header))
        self.time = float(fields.get("time", 0))
        self.sender = fields.get("sender", "")
        dest = fields.get("destination", "")
        self.destination = "" if dest == "(null destination)" else dest
        self.serial = int(fields["serial"]) if "serial" in fields else None
        self.reply_serial = int(fields["reply_serial"]) if "reply_serial" in fields else None
        self.path = fields.get("path", "")
        self.interface = fields.get("interface", "")
        self.member = fields.get("member", "")
        self.error_name = fields.get("error_name", "")
        self._body = body
        self._args = None

    @property
    def args(self):
        """The arguments as (signature, value) pairs."""
        if self._args is None:
            self._args = parse_values(self._body)
        return self._args

    def arg(self, index):
        a = self.args
        return a[index][1] if index < len(a) else None

    def __repr__(self):
        return "%s %s->%s %s %s.%s" % (self.kind, self.sender, self.destination, self.path,
                                       self.interface, self.member)


def parse(text):
    """Every complete message in dbus-monitor's text (the last one only if `text` ends
    with a newline and nothing more may follow: callers reading a growing file pass the
    part before the last header)."""
    messages = []
    header, body = None, []
    for line in text.split("\n"):
        m = HEADER.match(line)
        if m:
            if header is not None:
                messages.append(Message(header[0], header[1], body))
            header, body = (m.group(1), line[m.end():]), []
        elif header is not None and line:
            body.append(line)
    if header is not None:
        messages.append(Message(header[0], header[1], body))
    return messages


class BusLog:
    """A dbus-monitor log that is still being written: read what is complete so far."""

    def __init__(self, path):
        self.path = path
        self.offset = 0
        self.pending = ""
        self.messages = []

    def poll(self):
        try:
            with open(self.path, errors="replace") as f:
                f.seek(self.offset)
                chunk = f.read()
                self.offset = f.tell()
        except OSError:
            return self.messages
        text = self.pending + chunk
        # Everything up to the last header is complete; the last message may still grow.
        last = max(text.rfind("\nsignal "), text.rfind("\nmethod "), text.rfind("\nerror "))
        if last < 0:
            self.pending = text
            return self.messages
        self.messages.extend(parse(text[:last + 1]))
        self.pending = text[last + 1:]
        return self.messages


# ------------------------------------------------------------------ values
def parse_values(lines):
    out, i = [], 0
    lines = [l.strip() for l in lines]
    while i < len(lines):
        if not lines[i]:
            i += 1
            continue
        v, i = _value(lines, i)
        if v is not None:
            out.append(v)
    return out


def _quoted(lines, i, rest):
    """A quoted value starting at `rest` (just after the opening quote); it may span lines."""
    if rest.endswith('"'):
        return rest[:-1], i + 1
    parts = [rest]
    j = i + 1
    while j < len(lines):
        parts.append(lines[j])
        if lines[j].endswith('"'):
            parts[-1] = parts[-1][:-1]
            return "\n".join(parts), j + 1
        j += 1
    return "\n".join(parts), j


def _value(lines, i):
    if i >= len(lines):
        return None, i + 1      # a message cut short (the monitor was stopped mid-write)
    line = lines[i]
    if line.startswith("variant"):
        lines[i] = line[len("variant"):].strip()
        (sig, v), j = _value(lines, i)
        return ("v", (sig, v)), j
    for prefix, sig in QUOTED:
        if line.startswith(prefix + '"'):
            text, j = _quoted(lines, i, line[len(prefix) + 1:])
            return (sig, text), j
    if line.startswith('array of bytes "'):
        rest = line[len('array of bytes "'):]
        if rest.endswith(' + \\0'):
            rest = rest[:-len(' + \\0')]
        text, j = _quoted(lines, i, rest)
        return ("ay", text.encode("latin-1", "replace").hex()), j
    if line == "array of bytes [":
        hexes, j = [], i + 1
        while j < len(lines) and lines[j] != "]":
            hexes += lines[j].split()
            j += 1
        return ("ay", "".join(hexes)), j + 1
    if line == "array [":
        items, j = _items(lines, i + 1, "]")
        elem = items[0][0] if items else "?"
        return ("a" + elem, items), j
    if line == "dict entry(":
        k, j = _value(lines, i + 1)
        v, j = _value(lines, j)
        while j < len(lines) and lines[j] != ")":
            j += 1
        return ("{%s%s}" % (k[0], v[0]), (k, v)), j + 1
    if line == "struct {":
        items, j = _items(lines, i + 1, "}")
        return ("(%s)" % "".join(x[0] for x in items), items), j
    word, _, rest = line.partition(" ")
    if word in SCALARS:
        sig = SCALARS[word]
        if sig == "b":
            return (sig, rest == "true"), i + 1
        try:
            return (sig, float(rest) if sig == "d" else int(rest)), i + 1
        except ValueError:
            return (sig, rest), i + 1
    return None, i + 1          # file descriptors and what this reader does not know


def _items(lines, j, close):
    """The values from line j up to the line `close`; returns them and the line after it."""
    items = []
    while j < len(lines) and lines[j] != close:
        v, j = _value(lines, j)
        if v is not None:
            items.append(v)
    return items, j + 1


def props(array):
    """An a{sv} as [(name, signature, value)], variants unwrapped."""
    out = []
    for _, (k, v) in array[1]:
        inner = v[1] if v[0] == "v" else v
        out.append((k[1], inner[0], inner[1]))
    return out
