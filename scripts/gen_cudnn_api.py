#!/usr/bin/env python3
"""Regenerates lib/core/cudnn_api_table.inc from the cuDNN 9 headers of a CUDA installation.

The support catalogue (lib/core/support*.cpp) has one row per cuDNN function and per enum value;
this table is where the list of functions and the deprecation marks of the reference cuDNN come
from, so that no function is forgotten. The legacy API is every function of cudnn_graph.h,
cudnn_ops.h, cudnn_cnn.h and cudnn_adv.h except the backend (graph) API (cudnnBackend*); the
backend API is those cudnnBackend* functions and the enums of cudnn_graph.h that no legacy
function takes. Their rows come after the legacy API's, so the legacy rows read as before. A
function, type or enum value is deprecated when the header marks it CUDNN_DEPRECATED /
CUDNN_DEPRECATED_ENUM (an enum value also when its type is).

Every function of the four headers, the backend API's included, also gets its declared parameters
(name, C type, position), from which a recorded call's arguments are matched to the declaration
(lib/trace/param_match.cpp). A C type is written normalised: one space between tokens, `const`
first, the pointer stars after one space ("const void *", "void **"); an array parameter is written
as the pointer it is ("const int padA[]" -> "const int *").

Run it after moving to newer cuDNN headers:
  python3 scripts/gen_cudnn_api.py [CUDNN_INCLUDE_DIR [OUTPUT]]
(defaults: $CUDA_HOME/include and lib/core/cudnn_api_table.inc; the tests write elsewhere and
compare, so a stale table fails them)
"""
import os
import pathlib
import re
import subprocess
import sys
import tempfile

root = pathlib.Path(__file__).resolve().parent.parent
inc = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else
                   os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "include"))


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


version = strip_comments((inc / "cudnn_version.h").read_text())
major, minor, patch = (re.search(r"#define CUDNN_%s\s+(\d+)" % k, version).group(1)
                       for k in ("MAJOR", "MINOR", "PATCHLEVEL"))

functions = []          # (name, header, deprecated, parameter text): the legacy API
backend_functions = []  # the same for the backend (graph) API, cudnnBackend*
declarations = []       # (name, parameter text): every function, the backend API's included
enums = {}              # type -> [value names], in declaration order
legacy_text = ""        # where a legacy function or enum can be named
graph_enums = []
deprecated_types = set()
deprecated_values = set()
for header in ("cudnn_graph.h", "cudnn_ops.h", "cudnn_cnn.h", "cudnn_adv.h"):
    text = strip_comments((inc / header).read_text())
    for body, name in re.findall(r"typedef\s+enum\s*(?:\w+\s*)?\{([^{}]*)\}\s*(cudnn\w+_t)", text):
        enums[name] = re.findall(r"\b(CUDNN_\w+)\b(?:\s+CUDNN_DEPRECATED_ENUM)?\s*(?:=[^,]*)?(?:,|$)", body.strip())
        if header == "cudnn_graph.h":
            graph_enums.append(name)
    if header == "cudnn_graph.h":
        # Only the legacy functions and the logging callback of the graph header name legacy types.
        legacy_text += " ".join(re.findall(r"CUDNNWINAPI\s+(?!cudnnBackend)cudnn\w+\s*\([^;]*;", text))
        legacy_text += " ".join(re.findall(r"typedef\s+void\s*\(\s*\*\s*cudnnCallback_t[^;]*;", text))
    else:
        legacy_text += text
    for dep, name, params in re.findall(
            r"((?:CUDNN_DEPRECATED\s+)?)(?:cudnnStatus_t|size_t|const\s+char\s*\*|void)\s*"
            r"CUDNNWINAPI\s+(cudnn\w+)\s*\(([^;]*)\)\s*;", text):
        declarations.append((name, params))
        row = (name, header[len("cudnn_"):-len(".h")], bool(dep), params)
        (backend_functions if name.startswith("cudnnBackend") else functions).append(row)
    deprecated_types.update(re.findall(r"\}\s*(cudnn\w+_t)\s+CUDNN_DEPRECATED\s*;", text))
    deprecated_types.update(re.findall(r"\*\s*(cudnn\w+_t)\s+CUDNN_DEPRECATED\s*;", text))
    deprecated_values.update(re.findall(r"\b(CUDNN_\w+)\s+CUDNN_DEPRECATED_ENUM\b", text))
    # Values of enums whose type is deprecated.
    for body, name in re.findall(r"typedef\s+enum\s*\{([^{}]*)\}\s*(cudnn\w+_t)\s+CUDNN_DEPRECATED\s*;",
                                 text, flags=re.S):
        deprecated_values.update(v for v in re.findall(r"\b(CUDNN_\w+)\s*(?:=|,|$)", body))

# Enums of the legacy API: every enum of the ops, cnn and adv headers, and the graph header's enums
# that a legacy function or the logging callback takes.
legacy_enums = [t for t in enums if t not in graph_enums or re.search(r"\b%s\b" % t, legacy_text)]
# Enums of the backend API: the graph header's others, in declaration order.
backend_enums = [t for t in graph_enums if t not in legacy_enums]
probe = "#include <stdio.h>\n#include <cudnn.h>\nint main(void) {\n"
for t in legacy_enums + backend_enums:
    for v in enums[t]:
        probe += f'  printf("%s %s %lld\\n", "{t}", "{v}", (long long){v});\n'
probe += "  return 0;\n}\n"
with tempfile.TemporaryDirectory() as tmp:
    src = pathlib.Path(tmp) / "probe.c"
    src.write_text(probe)
    subprocess.run(["cc", "-w", f"-I{inc}", str(src), "-o", str(pathlib.Path(tmp) / "probe")], check=True)
    values = [line.split() for line in subprocess.run([str(pathlib.Path(tmp) / "probe")], check=True,
                                                       capture_output=True, text=True).stdout.splitlines()]



def parameters(params):
    """'const int padA[], void *x' -> [("padA", "const int *"), ("x", "void *")]; "void" -> []."""
    out = []
    for p in params.split(","):
        p = " ".join(p.split())
        if p in ("", "void"):
            continue
        m = re.fullmatch(r"(.*?)\s*\b(\w+)\s*((?:\[\s*\w*\s*\])?)", p)
        if not m:
            sys.exit(f"cannot parse parameter '{p}'")
        stars = m.group(1).count("*") + (1 if m.group(3) else 0)
        tokens = m.group(1).replace("*", " ").split()
        if "const" in tokens[1:] and tokens[0] != "const":  # "cudnnBackendDescriptor_t const" -> "const ..."
            tokens.remove("const")
            tokens.insert(0, "const")
        out.append((m.group(2), " ".join(tokens) + (" " + "*" * stars if stars else "")))
    return out


out = [f"/* Generated by scripts/gen_cudnn_api.py from the cuDNN {major}.{minor}.{patch} headers. Do not edit. */",
       "/* DNNCOMPAT_API_TABLE_VERSION(\"major.minor.patch\")",
       " * DNNCOMPAT_API_TABLE_FUNCTION(name, sub-library header, deprecated, enum types it takes): the legacy",
       " *   functions, then the backend API's (cudnnBackend*, taking the backend-API enums of their parameters)",
       " * DNNCOMPAT_API_TABLE_DEPRECATED_TYPE(type name)",
       " * DNNCOMPAT_API_TABLE_ENUM(type name, value name, value, deprecated): every value of every legacy enum,",
       " *   then of every backend-API enum",
       " * DNNCOMPAT_API_TABLE_DEPRECATED_VALUE(enum value name)",
       " * DNNCOMPAT_API_TABLE_PARAM(function, position from 0, parameter name, C type): every parameter of every",
       " *   function of the headers, the backend API's included, in declaration order */",
       f"DNNCOMPAT_API_TABLE_VERSION(\"{major}.{minor}.{patch}\")"]
# The enum types a function takes: those in its parameters, and those that the Set* functions of
# the descriptors it takes put into them (cudnnPoolingForward's pooling descriptor holds a
# cudnnPoolingMode_t and a cudnnNanPropagation_t).
def enum_params(params):
    return [t for t in dict.fromkeys(re.findall(r"\b(cudnn\w+_t)\b", params)) if t in legacy_enums]


def descriptor_params(params):
    return [t for t in dict.fromkeys(re.findall(r"\b(cudnn\w+Descriptor_t)\b", params))]


setters = {}
for name, header, dep, params in functions:
    if name.startswith("cudnnSet"):
        for d in descriptor_params(params):
            setters.setdefault(d, []).extend(enum_params(params))
for name, header, dep, params in functions:
    taken = enum_params(params)
    for d in descriptor_params(params):
        taken += setters.get(d, [])
    taken = list(dict.fromkeys(taken))
    out.append(f"DNNCOMPAT_API_TABLE_FUNCTION(\"{name}\", \"{header}\", {'true' if dep else 'false'}, "
               f"\"{','.join(taken)}\")")
for name, header, dep, params in backend_functions:
    taken = [t for t in dict.fromkeys(re.findall(r"\b(cudnn\w+_t)\b", params)) if t in enums]
    out.append(f"DNNCOMPAT_API_TABLE_FUNCTION(\"{name}\", \"{header}\", {'true' if dep else 'false'}, "
               f"\"{','.join(taken)}\")")
for t, v, n in values:
    dep = v in deprecated_values or t in deprecated_types
    out.append(f"DNNCOMPAT_API_TABLE_ENUM(\"{t}\", \"{v}\", {n}, {'true' if dep else 'false'})")
for name, params in declarations:
    for i, (pname, ptype) in enumerate(parameters(params)):
        out.append(f"DNNCOMPAT_API_TABLE_PARAM(\"{name}\", {i}, \"{pname}\", \"{ptype}\")")
for t in sorted(deprecated_types):
    out.append(f"DNNCOMPAT_API_TABLE_DEPRECATED_TYPE(\"{t}\")")
for v in sorted(deprecated_values):
    out.append(f"DNNCOMPAT_API_TABLE_DEPRECATED_VALUE(\"{v}\")")
output = pathlib.Path(sys.argv[2]) if len(sys.argv) > 2 else root / "lib/core/cudnn_api_table.inc"
output.write_text("\n".join(out) + "\n")
print(f"{len(functions)} legacy and {len(backend_functions)} backend functions ({len(declarations)} declared), "
      f"{len(values)} values of {len(legacy_enums)} legacy and {len(backend_enums)} backend enums, {len(deprecated_types)} deprecated types, "
      f"{len(deprecated_values)} deprecated enum values (cuDNN {major}.{minor}.{patch})")
