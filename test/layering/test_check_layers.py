#!/usr/bin/env python3
"""Self-test of check_layers.py: on the real tree with uses planted into it
(--plant, nothing is written), the check must fail and name each planted
use, so the layering test cannot pass by seeing nothing."""

import contextlib
import io
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import check_layers  # noqa: E402


def run_checker(*args):
    """(exit code, output lines) of check_layers.py on ROOT."""
    proc = subprocess.run(
        [sys.executable, os.path.join(HERE, "check_layers.py"), "--root", ROOT,
         *args], capture_output=True, text=True)
    return proc.returncode, proc.stdout.splitlines() + proc.stderr.splitlines()


class PlantedUses(unittest.TestCase):
    def assertFailsWith(self, plants, expected):
        args = [a for path, text in plants for a in ("--plant", f"{path}={text}")]
        code, lines = run_checker(*args)
        self.assertEqual(code, 1, "\n".join(lines))
        # Exactly the planted violations and the summary: the rest of the
        # tree is clean.
        self.assertEqual(lines[:-1], expected)
        self.assertTrue(lines[-1].startswith("layering: "), lines[-1])

    def test_runtime_including_the_compiler_fails(self):
        self.assertFailsWith(
            [("runtime/src/Planted.cpp", '#include "compiler/lowering/Passes.h"\n')],
            ["runtime/src/Planted.cpp:1: includes compiler/lowering/Passes.h "
             "(layer runtime may not use layer lowering)"])

    def test_step_back_inside_the_compiler_fails(self):
        self.assertFailsWith(
            [("compiler/lowering/Planted.cpp",
              '// a comment\n#include "compiler/transforms/Passes.h"\n')],
            ["compiler/lowering/Planted.cpp:2: includes "
             "compiler/transforms/Passes.h (layer lowering may not use layer "
             "transforms)"])

    def test_tool_may_include_only_the_driver_of_the_compiler(self):
        self.assertFailsWith(
            [("tools/kiln-run/Planted.cpp",
              '#include "compiler/pipeline/Driver.h"\n'
              '#include "compiler/pipeline/Pipeline.h"\n')],
            ["tools/kiln-run/Planted.cpp:2: includes compiler/pipeline/Pipeline.h "
             "(layer tools may not use layer pipeline)"])

    def test_private_runtime_header_by_bare_name_fails(self):
        # Found through an include path, as autotune once found Cuda.h.
        self.assertFailsWith(
            [("autotune/Planted.cpp", '#include "Executor.h"\n')],
            ["autotune/Planted.cpp:1: includes runtime/src/Executor.h (layer "
             "autotune may not use runtime/src/, private to layer runtime)"])

    def test_mlir_below_the_compiler_fails(self):
        self.assertFailsWith(
            [("support/npy/Planted.cpp", "#include <mlir/IR/Value.h>\n")],
            ["support/npy/Planted.cpp:1: includes mlir/IR/Value.h (layer "
             "support may not use layer mlir)"])

    def test_links_and_private_sources_in_cmake_fail(self):
        lines = run_checker(
            "--plant", "autotune/CMakeLists.txt=target_link_libraries(KilnAutotune\n"
            "  PRIVATE KilnLowering MLIRIR)\n",
            "--plant", "tools/kiln-inspect/CMakeLists.txt=target_sources("
            "kiln-inspect PRIVATE ${CMAKE_SOURCE_DIR}/runtime/src/Cuda.cpp)\n")[1]
        with open(os.path.join(ROOT, "autotune/CMakeLists.txt")) as f:
            link_line = len(f.read().splitlines()) + 2
        with open(os.path.join(ROOT, "tools/kiln-inspect/CMakeLists.txt")) as f:
            sources_line = len(f.read().splitlines()) + 1
        self.assertEqual(lines[:-1], [
            f"autotune/CMakeLists.txt:{link_line}: links KilnLowering (layer "
            "autotune may not use layer lowering)",
            f"autotune/CMakeLists.txt:{link_line}: links MLIRIR (layer autotune "
            "may not use layer mlir)",
            f"tools/kiln-inspect/CMakeLists.txt:{sources_line}: names "
            "runtime/src/ (private to layer runtime)"])

    def test_folder_outside_the_table_fails(self):
        self.assertFailsWith(
            [("newlib/Planted.cpp", "int planted;\n")],
            ["newlib/Planted.cpp:1: belongs to no layer (add its folder to "
             "LAYERS in test/layering/check_layers.py)"])

    def test_empty_root_fails(self):
        with tempfile.TemporaryDirectory() as empty:
            proc = subprocess.run(
                [sys.executable, os.path.join(HERE, "check_layers.py"),
                 "--root", empty], capture_output=True, text=True)
        self.assertEqual(proc.returncode, 1)
        self.assertIn("holds no product sources", proc.stdout)


class AllowList(unittest.TestCase):
    def test_stale_entry_fails(self):
        stale = ("tools/kiln-run/kiln-run.cpp", "compiler/lowering/Passes.h")
        saved = check_layers.ALLOWED
        check_layers.ALLOWED = saved | {stale}
        try:
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                code = check_layers.main(["--root", ROOT])
        finally:
            check_layers.ALLOWED = saved
        self.assertEqual(code, 1)
        self.assertIn(f"ALLOWED has ({stale[0]}, {stale[1]}), which no longer occurs",
                      out.getvalue())


if __name__ == "__main__":
    unittest.main()
