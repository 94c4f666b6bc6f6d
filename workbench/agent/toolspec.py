"""The tools an agent may call: their JSON schemas, and the checking of arguments.

Arguments arrive as the JSON text a model wrote. `parse_arguments` turns that text
into a dict or raises `ToolError` with a message that tells the model exactly what
was wrong and what a valid call looks like; the loop sends that message back as the
tool's result and the run goes on.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

MAX_KERNEL_BYTES = 256 * 1024          # a kernel larger than this is refused
MAX_PATTERN_CHARS = 200
# Limits on what a model may send, checked before the JSON is decoded: the argument text
# of write_code (a kernel escaped as JSON may double in size) and of every other tool,
# nesting depth (1,000 nested '[' would exhaust the decoder's recursion) and digits of
# an integer (Python refuses to convert more than 4,300).
MAX_CODE_ARGUMENT_BYTES = 2 * MAX_KERNEL_BYTES + 1024
MAX_ARGUMENT_BYTES = 16 * 1024
MAX_NESTING = 8
MAX_INT_DIGITS = 30
MAX_ECHO_CHARS = 64                    # a tool name or argument name quoted back to the model
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")


class ToolError(Exception):
    """A call the workbench refuses; the message is written for the model."""


@dataclass(frozen=True)
class Param:
    name: str
    type: str                 # JSON Schema type: "string" | "integer"
    doc: str
    required: bool = True
    minimum: int | None = None
    maximum: int | None = None


@dataclass(frozen=True)
class ToolSpec:
    name: str
    doc: str
    params: tuple[Param, ...] = field(default_factory=tuple)

    def schema(self) -> dict:
        """OpenAI-style function tool, which litellm translates for every provider."""
        props = {}
        for p in self.params:
            prop = {"type": p.type, "description": p.doc}
            if p.minimum is not None:
                prop["minimum"] = p.minimum
            if p.maximum is not None:
                prop["maximum"] = p.maximum
            props[p.name] = prop
        return {"type": "function", "function": {
            "name": self.name, "description": self.doc,
            "parameters": {"type": "object", "properties": props,
                           "required": [p.name for p in self.params if p.required]}}}

    def example(self) -> str:
        return json.dumps({p.name: ("..." if p.type == "string" else 12)
                           for p in self.params if p.required})


TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec("write_code",
             "Replace the current kernel with this complete assembly source. The other tools "
             f"act on the current kernel. At most {MAX_KERNEL_BYTES // 1024} KB.",
             (Param("code", "string", "the complete assembly source of the kernel"),)),
    ToolSpec("check_syntax",
             "Assemble the current kernel; report every error with its line and column, or "
             "its size in instructions."),
    ToolSpec("run_eval",
             "Run the current kernel on fresh random inputs and edge cases; report pass/fail, "
             "the fraction of output elements within tolerance, cycles, speed-up over the "
             "baseline and unit utilisation."),
    ToolSpec("view_output",
             "Run the current kernel on one fresh input set and show a memory-level diff "
             "against the reference: worst rows and first mismatching elements.",
             (Param("max_rows", "integer", "how many of the worst rows to show (default 12)",
                    required=False, minimum=1, maximum=64),)),
    ToolSpec("grep_docs",
             "Search the ISA manual (case-insensitive RE2 regular expression, no backreferences "
             f"or lookaround, or plain text; at most {MAX_PATTERN_CHARS} characters); returns "
             "matching lines with their section and line number.",
             (Param("pattern", "string", "what to look for, e.g. 'V_MAX' or 'prefetch'"),)),
    ToolSpec("get_inst_size",
             "Size of the current kernel in instructions and bytes against the instruction "
             "memory."),
    ToolSpec("run_rtl",
             "Run a kernel version on the accelerator's RTL (the Verilog hardware, simulated) "
             "and on the functional model, on one fresh input set; report pass/fail against "
             "the reference on each, cycles on each, and the first instruction at which the "
             "two disagree, if they do. Slower than run_eval; offered only in runs started "
             "with --rtl.",
             (Param("version", "integer", "the kernel version to run (write_code reports "
                    "each version's number)", minimum=1),)),
    ToolSpec("submit",
             "Finish the run. The best correct kernel you evaluated with run_eval is scored "
             "(correct and fewest cycles), not necessarily the current one.",
             (Param("summary", "string", "one or two sentences on what you did", required=False),)),
)

BY_NAME = {t.name: t for t in TOOLS}
# Tools a run offers only when it asks for them: name -> the run option that does.
OPT_IN = {"run_rtl": "--rtl"}


def offered(rtl: bool = False) -> tuple[str, ...]:
    """The names of the tools a run offers."""
    return tuple(t.name for t in TOOLS if t.name not in OPT_IN or (rtl and t.name == "run_rtl"))


def schemas(names: tuple[str, ...] | None = None) -> list[dict]:
    """The schemas of `names` (default: the tools every run offers)."""
    names = offered() if names is None else names
    return [t.schema() for t in TOOLS if t.name in names]


def clip_name(name: str) -> str:
    """A tool or argument name as quoted back to the model: at most MAX_ECHO_CHARS."""
    if len(name) <= MAX_ECHO_CHARS:
        return name
    return f"{name[:MAX_ECHO_CHARS]}... ({len(name):,} characters)"


def history_name(name: str) -> str:
    """A tool name as it goes back into the conversation: providers accept only
    [A-Za-z0-9_-]{1,64}, and a huge name must not be re-sent at every query."""
    return name if _NAME.fullmatch(name) else (re.sub(r"[^A-Za-z0-9_-]", "_", name)[:64] or "unnamed")


def decode(name: str, raw: str, example: str = "{}") -> object:
    """The JSON value of a call's argument text, within the size, nesting and integer
    limits, or ToolError saying which limit was passed."""
    size = len(raw.encode("utf-8", "surrogatepass"))
    limit = MAX_CODE_ARGUMENT_BYTES if name == "write_code" else MAX_ARGUMENT_BYTES
    if size > limit:
        if name == "write_code":   # the kernel in it cannot fit whatever its JSON says
            raise ToolError(_too_large(size, "the arguments"))
        raise ToolError(f"arguments of {clip_name(name)} are {size:,} bytes; the limit is "
                        f"{limit:,} bytes. Send one small JSON object, e.g. {example}")
    text = raw.strip()
    if not text:
        return {}
    outside = _STRING.sub('""', text)          # brackets and digits outside strings
    depth = deepest = 0
    for ch in outside:
        if ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth -= 1
    if deepest > MAX_NESTING:
        raise ToolError(f"arguments of {clip_name(name)} nest {deepest} levels deep; at most "
                        f"{MAX_NESTING} are accepted. Send one flat JSON object, e.g. {example}")
    digits = max((len(m) for m in re.findall(r"\d+", outside)), default=0)
    if digits > MAX_INT_DIGITS:
        raise ToolError(f"arguments of {clip_name(name)} hold a number of {digits:,} digits; "
                        f"at most {MAX_INT_DIGITS} are accepted, e.g. {example}")
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise ToolError(
            f"arguments of {clip_name(name)} are not valid JSON: {e.msg} (line {e.lineno}, "
            f"column {e.colno}, character {e.pos}); you sent {_snippet(text)}. Send one JSON "
            f"object, e.g. {example}; inside a JSON string escape newlines as \\n "
            f"and quotes as \\\"") from None
    except (RecursionError, ValueError) as e:  # beyond the checks above; never fatal
        raise ToolError(f"arguments of {clip_name(name)} cannot be decoded ({type(e).__name__}); "
                        f"send one flat JSON object, e.g. {example}") from None


def _snippet(text: str, n: int = 120) -> str:
    text = text if len(text) <= n else text[:n] + f"... ({len(text)} characters)"
    return json.dumps(text)


def parse_arguments(name: str, raw: str, names: tuple[str, ...] | None = None) -> dict:
    """The checked arguments of a call to tool `name`, one of the offered `names`
    (default: the tools every run offers), or ToolError for the model."""
    names = offered() if names is None else names
    spec = BY_NAME.get(name) if name in names else None
    if spec is None:
        known = ", ".join(names)
        shown = repr(clip_name(name)) if name else "(no tool name)"
        if name in OPT_IN:
            raise ToolError(f"{name} is not available in this run (it is offered only in runs "
                            f"started with {OPT_IN[name]}); the tools are: {known}")
        raise ToolError(f"unknown tool {shown}; the tools are: {known}")
    args = decode(name, raw, spec.example())
    if not isinstance(args, dict):
        raise ToolError(f"arguments of {name} must be a JSON object such as {spec.example()}, "
                        f"not a JSON {type(args).__name__}")
    allowed = {p.name: p for p in spec.params}
    unknown = sorted(set(args) - set(allowed))
    if unknown:
        takes = ", ".join(allowed) if allowed else "no arguments"
        shown = ", ".join(clip_name(u) for u in unknown[:5]) + (
            f" and {len(unknown) - 5} more" if len(unknown) > 5 else "")
        raise ToolError(f"{name} got unexpected argument(s) {shown}; it takes {takes}")
    for p in spec.params:
        if p.name not in args or args[p.name] is None:
            if p.required:
                raise ToolError(f"{name} needs the argument {p.name!r} ({p.type}): {p.doc}; "
                                f"e.g. {spec.example()}")
            args.pop(p.name, None)
            continue
        value = args[p.name]
        if p.type == "string" and not isinstance(value, str):
            raise ToolError(f"{name}: argument {p.name!r} must be a string, got a JSON "
                            f"{type(value).__name__}")
        if p.type == "string":
            try:
                value.encode("utf-8")
            except UnicodeEncodeError as e:
                raise ToolError(f"{name}: argument {p.name!r} holds an invalid Unicode character "
                                f"(a lone surrogate escape) at character {e.start}; send plain "
                                f"text") from None
        if p.type == "integer":
            if isinstance(value, bool) or not isinstance(value, int):
                raise ToolError(f"{name}: argument {p.name!r} must be an integer, got {value!r}")
            if (p.minimum is not None and value < p.minimum) or (
                    p.maximum is not None and value > p.maximum):
                bound = (f"at least {p.minimum}" if p.maximum is None else
                         f"at most {p.maximum}" if p.minimum is None else
                         f"between {p.minimum} and {p.maximum}")
                raise ToolError(f"{name}: argument {p.name!r} must be {bound}, got {value}")
    if name == "write_code":
        code = args["code"]
        size = len(code.encode("utf-8", "surrogatepass"))
        if size > MAX_KERNEL_BYTES:
            raise ToolError(_too_large(size, "the kernel"))
        if not code.strip():
            raise ToolError("write_code got an empty kernel; send the complete assembly source")
    if name == "grep_docs":
        pattern = args["pattern"]
        if not pattern.strip():
            raise ToolError("grep_docs needs a non-empty pattern, e.g. {\"pattern\": \"V_ADD\"}")
        if len(pattern) > MAX_PATTERN_CHARS:
            raise ToolError(f"grep_docs pattern is {len(pattern)} characters; keep it under "
                            f"{MAX_PATTERN_CHARS}")
    return args


def _too_large(size: int, what: str) -> str:
    return (f"{what} is {size:,} bytes; write_code accepts at most {MAX_KERNEL_BYTES:,} bytes "
            f"({MAX_KERNEL_BYTES // 1024} KB). Nothing was stored; the current kernel is "
            f"unchanged. Use the ISA's hardware loops instead of unrolling (grep_docs 'loop'), "
            f"and check get_inst_size against the instruction memory")
