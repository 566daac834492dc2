#!/usr/bin/env python3
"""Checks that Kiln's product code uses only the layers below it.

Reads every #include of the C/C++/CUDA sources and every
target_link_libraries of the CMakeLists.txt files outside the tests
(test/, bench/, any folder named test or tests) and holds them against
LAYERS below. Prints one line per violation,

    file:line: includes X (layer A may not use layer B)
    file:line: links X (layer A may not use layer B)

and exits 1; exits 0 with a one-line summary when there is none.

    check_layers.py [--root DIR] [--plant PATH=TEXT ...]

--plant adds TEXT to the file PATH (relative to the root; a new file when
there is none) for this run only, without writing anything: the self-test
plants an upward include this way to see the check fail on it.
"""

import argparse
import fnmatch
import os
import re
import sys
from collections import namedtuple

Layer = namedtuple("Layer", "name folders uses private targets")


def layer(name, folders, uses, private=(), targets=()):
    return Layer(name, tuple(folders), tuple(uses), tuple(private), tuple(targets))


# The layers, top to bottom. A file belongs to the layer whose folder is the
# longest prefix of its path (a folder entry may name a single file). A file
# may include, and a target may link, what belongs to its own layer, to the
# layers in its `uses` and to everything those may use in turn. `private`
# folders are for the layer itself only. `targets` names libraries that offer
# the layer to others when their CMakeLists.txt sits elsewhere or defines them
# through a variable. MLIR and LLVM are a layer of their own so that the
# runtime, autotune, nvrtc and support can never reach them.
LAYERS = [
    # The mains. Until the compile driver is complete they include compiler
    # headers beyond its public one: see ALLOWED.
    layer("tools", ["tools/", "python/", "compiler/codegen/tools/"],
          uses=["driver-api", "dialects", "autotune"]),
    # The compiler's entry for tools and bindings: its public header and the
    # library that implements it.
    layer("driver-api", ["compiler/pipeline/Driver.h", "compiler/pipeline/Compile.h"],
          uses=["runtime", "mlir"], targets=["KilnDriver", "KilnCompile"]),
    # Inside the compiler: frontend -> transforms -> lowering -> kernels ->
    # engine, the pipeline (the -O table, the driver) on top; nvrtc below the
    # kernels; the evaluator under transforms, lowering and the kernels.
    layer("pipeline", ["compiler/pipeline/"], uses=["frontend", "driver-api"]),
    layer("frontend", ["compiler/frontend/"], uses=["transforms"]),
    layer("transforms", ["compiler/transforms/"], uses=["lowering"]),
    layer("lowering", ["compiler/lowering/"], uses=["kernels"]),
    layer("kernels", ["compiler/kernels/", "compiler/codegen/"],
          uses=["engine", "nvrtc", "evaluator"]),
    layer("engine", ["compiler/engine/"], uses=["nvrtc", "dialects", "autotune"]),
    layer("evaluator", ["compiler/evaluator/"], uses=["dialects"]),
    layer("nvrtc", ["compiler/nvrtc/"], uses=["runtime"]),
    layer("dialects", ["dialects/"], uses=["runtime", "mlir"]),
    layer("autotune", ["autotune/"], uses=["runtime"]),
    layer("examples", ["examples/"], uses=["runtime"]),
    # kiln/internal/*.h is the runtime's API for the layers above; src/ is
    # its own.
    layer("runtime", ["runtime/"], uses=["support"], private=["runtime/src/"],
          targets=["KilnRuntime", "KilnRuntimeShared"]),
    layer("support", ["support/"], uses=[]),
    # External: headers by include path, libraries by target name.
    layer("mlir", ["mlir/", "llvm/", "mlir-c/", "llvm-c/"], uses=[],
          targets=["MLIR*", "LLVM*"]),
]

# Uses that break the table today, each a (user, used) pair of files or of
# targets. They go with the restructure of compiler/codegen and
# compiler/lowering into per-kind kernel folders and a compile driver that the
# tools call; a pair that no longer occurs is an error, so this list only
# shrinks.
ALLOWED = {
    # kernels -> lowering: codegen runs the lowering passes and reads
    # launches through the lowering's spec bridge.
    ("compiler/codegen/CompileModule.cpp", "compiler/lowering/Passes.h"),
    ("compiler/codegen/CompileModule.cpp", "compiler/lowering/SpecBridge.h"),
    ("KilnCodegen", "KilnLowering"),
    # engine -> kernels: the engine emitter copies codegen's CompiledModel.
    ("compiler/engine/EngineEmitter.h", "compiler/codegen/CompiledModel.h"),
    ("KilnEngineEmitter", "KilnCodegen"),
    # tools -> compiler internals: kilnc lowers, tunes and emits itself.
    # tools -> compiler internals: kiln-opt registers the passes itself.
    ("tools/kiln-opt/kiln-opt.cpp", "compiler/lowering/Passes.h"),
    ("tools/kiln-opt/kiln-opt.cpp", "compiler/pipeline/Pipeline.h"),
    ("tools/kiln-opt/kiln-opt.cpp", "compiler/transforms/Passes.h"),
    ("kiln-opt", "KilnPipeline"),
    ("kiln-opt", "KilnTransforms"),
    ("kiln-opt", "KilnLowering"),
    # tools -> compiler internals: kiln-eval runs the evaluator itself.
    ("tools/kiln-eval/kiln-eval.cpp", "compiler/evaluator/Evaluator.h"),
    ("kiln-eval", "KilnEvaluator"),
    # tools -> compiler internals: the codegen developer tools.
    ("compiler/codegen/tools/kiln-cgc.cpp", "compiler/codegen/CompiledModel.h"),
    ("compiler/codegen/tools/kiln-cgc.cpp", "compiler/codegen/TensorBytes.h"),
    ("compiler/codegen/tools/kiln-cgc.cpp", "compiler/evaluator/Evaluator.h"),
    ("compiler/codegen/tools/kiln-cgc.cpp", "compiler/lowering/Lowering.h"),
    ("compiler/codegen/tools/kiln-cgc.cpp", "compiler/lowering/SpecBridge.h"),
    ("kiln-cgc", "KilnCodegen"),
    ("kiln-cgc", "KilnLowering"),
    ("kiln-cgc", "KilnEvaluator"),
    ("compiler/codegen/tools/kiln-kernel-opt.cpp",
     "compiler/codegen/CompiledModel.h"),
    ("compiler/codegen/tools/kiln-kernel-opt.cpp",
     "compiler/pipeline/Pipeline.h"),
    ("compiler/codegen/tools/kiln-kernel-opt.cpp",
     "compiler/transforms/Passes.h"),
    ("kiln-kernel-opt", "KilnCodegen"),
    ("kiln-kernel-opt", "KilnPipeline"),
    ("kiln-kernel-opt", "KilnTransforms"),
    ("kiln-kernel-opt", "KilnLowering"),
}

# Not product code: never scanned. A folder of this name anywhere is skipped,
# and so is any folder holding a CMakeCache.txt (a build tree).
SKIPPED_TOP = {"test", "bench", "notes", "docs", "scripts"}
SKIPPED_ANYWHERE = {"test", "tests", "__pycache__"}
SOURCE_SUFFIXES = (".h", ".hh", ".hpp", ".hxx", ".c", ".cc", ".cpp", ".cxx",
                   ".cu", ".cuh", ".inc", ".def")
LINK_KEYWORDS = {"PUBLIC", "PRIVATE", "INTERFACE", "LINK_PUBLIC",
                 "LINK_PRIVATE", "LINK_INTERFACE_LIBRARIES", "debug",
                 "optimized", "general"}

INCLUDE_RE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*([<"])([^">\n]+)[">]', re.M)
COMMAND_RE = re.compile(
    r"\b(add_library|add_executable|target_link_libraries)\s*\(", re.I)


class Table:
    """LAYERS with each layer's closure of uses."""

    def __init__(self, layers):
        self.layers = {l.name: l for l in layers}
        for l in layers:
            for used in l.uses:
                if used not in self.layers:
                    raise SystemExit(f"LAYERS: {l.name} uses unknown layer {used}")
        self.folders = sorted(((f, l.name) for l in layers for f in l.folders),
                              key=lambda item: -len(item[0]))
        self.private = [(f, l.name) for l in layers for f in l.private]
        self.reach = {name: self._closure(name) for name in self.layers}

    def _closure(self, name):
        seen, todo = {name}, [name]
        while todo:
            for used in self.layers[todo.pop()].uses:
                if used not in seen:
                    seen.add(used)
                    todo.append(used)
        return seen

    def layer_of(self, path):
        for folder, name in self.folders:
            if path.startswith(folder):
                return name
        return None

    def target_layer(self, target):
        for l in self.layers.values():
            if any(fnmatch.fnmatchcase(target, p) for p in l.targets):
                return l.name
        return None

    def refusal(self, user, used_path, used_layer):
        """Why layer `user` may not use `used_path` (of `used_layer`), or None."""
        for folder, owner in self.private:
            if used_path.startswith(folder) and user != owner:
                return (f"layer {user} may not use {folder}, "
                        f"private to layer {owner}")
        if used_layer in self.reach[user]:
            return None
        return f"layer {user} may not use layer {used_layer}"


def read_tree(root, plants):
    """{relative path: text} of the product sources and CMakeLists.txt files."""
    files = {}
    for folder, dirs, names in os.walk(root):
        rel_folder = os.path.relpath(folder, root).replace(os.sep, "/")
        rel_folder = "" if rel_folder == "." else rel_folder + "/"
        dirs[:] = sorted(
            d for d in dirs
            if not d.startswith(".") and d not in SKIPPED_ANYWHERE
            and not (rel_folder == "" and d in SKIPPED_TOP)
            and not os.path.exists(os.path.join(folder, d, "CMakeCache.txt")))
        for name in names:
            if name == "CMakeLists.txt" or name.endswith(SOURCE_SUFFIXES):
                with open(os.path.join(folder, name), encoding="utf-8",
                          errors="replace") as f:
                    files[rel_folder + name] = f.read()
    for path, text in plants:
        old = files.get(path, "")
        files[path] = old + ("\n" if old and not old.endswith("\n") else "") + text
    return files


def line_of(text, offset):
    return text.count("\n", 0, offset) + 1


class Checker:
    def __init__(self, table, files):
        self.table = table
        self.files = files
        self.by_suffix = {}
        for path in files:
            parts = path.split("/")
            for i in range(len(parts)):
                self.by_suffix.setdefault("/".join(parts[i:]), []).append(path)
        self.violations = []
        self.used_allowances = set()
        self.counts = {"files": 0, "includes": 0, "links": 0}

    def report(self, path, line, what):
        self.violations.append((path, line, what))

    def allowed(self, user, used):
        if (user, used) in ALLOWED:
            self.used_allowances.add((user, used))
            return True
        return False

    def resolve(self, path, bracket, name):
        """The repository path an include names, or the name itself."""
        folder = path.rsplit("/", 1)[0] + "/" if "/" in path else ""
        if bracket == '"' and folder + name in self.files:
            return folder + name
        if name in self.files:
            return name
        if bracket == '"':
            found = self.by_suffix.get(name, [])
            if len(found) == 1:
                return found[0]
            owners = {self.table.layer_of(p) for p in found}
            if len(owners) > 1:
                return found  # ambiguous: the caller reports it
            if found:
                return found[0]
        return name

    def check_sources(self):
        for path, text in sorted(self.files.items()):
            if path.endswith("CMakeLists.txt"):
                continue
            user = self.table.layer_of(path)
            if user is None:
                self.report(path, 1, "belongs to no layer (add its folder to "
                            "LAYERS in test/layering/check_layers.py)")
                continue
            self.counts["files"] += 1
            for match in INCLUDE_RE.finditer(text):
                bracket, name = match.group(1), match.group(2).strip()
                line = line_of(text, match.start())
                used = self.resolve(path, bracket, name)
                if isinstance(used, list):
                    self.report(path, line, f'includes "{name}", which could be '
                                f'any of {", ".join(used)}: spell its path '
                                "from the repository root")
                    continue
                used_layer = self.table.layer_of(used)
                if used_layer is None:
                    continue  # system or generated header
                self.counts["includes"] += 1
                why = self.table.refusal(user, used, used_layer)
                if why and not self.allowed(path, used):
                    self.report(path, line, f"includes {used} ({why})")

    def cmake_commands(self):
        """(path, text, command, [(token, offset)]) of each command read."""
        for path, text in sorted(self.files.items()):
            if not path.endswith("CMakeLists.txt"):
                continue
            # Blank out comments, keeping offsets (and so line numbers).
            text = re.sub(r"#[^\n]*", lambda m: " " * len(m.group(0)), text)
            for match in COMMAND_RE.finditer(text):
                depth, end = 1, match.end()
                while end < len(text) and depth:
                    depth += {"(": 1, ")": -1}.get(text[end], 0)
                    end += 1
                args = [(m.group(0), m.start())
                        for m in re.finditer(r"[^\s()]+", text[match.end():end - 1])]
                args = [(tok, match.end() + off) for tok, off in args]
                yield path, text, match.group(1).lower(), args

    def check_cmake(self):
        defined = {}  # target -> layer of the CMakeLists.txt defining it
        commands = list(self.cmake_commands())
        for path, _, command, args in commands:
            if command != "target_link_libraries" and args:
                name = args[0][0]
                if not name.startswith("$"):
                    defined[name] = self.table.layer_of(path)
        for path, text, command, args in commands:
            if command != "target_link_libraries" or not args:
                continue
            target = args[0][0]
            user = defined.get(target)
            if user is None:
                continue
            for dep, offset in args[1:]:
                if dep in LINK_KEYWORDS or dep.startswith(("$", '"')):
                    continue
                used_layer = self.table.target_layer(dep) or defined.get(dep)
                if used_layer is None:
                    if dep.startswith("Kiln"):
                        self.report(path, line_of(text, offset),
                                    f"links {dep}, a target the layer table "
                                    "does not know")
                    continue
                self.counts["links"] += 1
                why = self.table.refusal(user, "", used_layer)
                if why and not self.allowed(target, dep):
                    self.report(path, line_of(text, offset),
                                f"links {dep} ({why})")
        # A private folder named in another layer's CMakeLists.txt: its
        # sources compiled elsewhere or its headers put on an include path.
        for path, text in sorted(self.files.items()):
            if not path.endswith("CMakeLists.txt"):
                continue
            user = self.table.layer_of(path)
            for folder, owner in self.table.private:
                if user == owner:
                    continue
                pattern = re.escape(folder.rstrip("/")) + r"\b"
                for match in re.finditer(pattern, text):
                    self.report(path, line_of(text, match.start()),
                                f"names {folder} (private to layer {owner})")

    def check_allowances(self):
        for user, used in sorted(ALLOWED - self.used_allowances):
            self.report("test/layering/check_layers.py", 1,
                        f"ALLOWED has ({user}, {used}), which no longer "
                        "occurs: remove it")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--root", default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    parser.add_argument("--plant", action="append", default=[],
                        metavar="PATH=TEXT")
    args = parser.parse_args(argv)
    plants = []
    for plant in args.plant:
        path, sep, text = plant.partition("=")
        if not sep:
            parser.error(f"--plant {plant}: expected PATH=TEXT")
        plants.append((path, text))

    checker = Checker(Table(LAYERS), read_tree(os.path.abspath(args.root), plants))
    checker.check_sources()
    checker.check_cmake()
    checker.check_allowances()
    if checker.counts["files"] == 0:
        checker.report(args.root, 1, "holds no product sources (wrong --root?)")
    for path, line, what in sorted(set(checker.violations)):
        print(f"{path}:{line}: {what}")
    counts = checker.counts
    summary = (f"{counts['files']} files, {counts['includes']} includes of Kiln "
               f"or MLIR headers, {counts['links']} links checked")
    if checker.violations:
        print(f"layering: {len(set(checker.violations))} violations ({summary})")
        return 1
    print(f"layering: ok ({summary}; {len(ALLOWED)} allowed exceptions)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
