# lit configuration for Kiln's FileCheck suites (kilnc and kiln-opt on .onnx/.mlir).
#
# Two ways in:
#   * from the build tree (ninja check-kiln-lit, ctest -R lit): lit.site.cfg.py,
#     configured by CMake, sets the paths below and then loads this file;
#   * straight on the sources, for developers:
#       lit --param kiln_tools_dir=/work/main/build/bin test/lit
#     (optional params: llvm_tools_dir, kiln_exec_root, python_executable).

import os
import sys

import lit.formats

config.name = "Kiln"
# lit's internal shell: the same behaviour on every host.
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".test"]
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "Inputs"]
config.test_source_root = os.path.dirname(__file__)


def setting(name, default=None):
    """A site-config value, else a --param, else the default."""
    value = getattr(config, name, None)
    if value:
        return value
    return lit_config.params.get(name, default)


kiln_src_root = setting(
    "kiln_src_root", os.path.dirname(os.path.dirname(config.test_source_root)))
kiln_tools_dir = setting("kiln_tools_dir")
if not kiln_tools_dir:
    lit_config.fatal("kiln_tools_dir is not set: run lit on the build tree, or pass "
                     "--param kiln_tools_dir=<build>/bin")
kiln_tools_dir = os.path.abspath(kiln_tools_dir)
llvm_tools_dir = setting("llvm_tools_dir", "/usr/lib/llvm-22/bin")
python_executable = setting("python_executable", sys.executable)

# Run directly on the sources, write the Output/ folders into the build tree
# rather than next to the tests.
if not getattr(config, "test_exec_root", None):
    config.test_exec_root = setting(
        "kiln_exec_root",
        os.path.join(os.path.dirname(kiln_tools_dir), "test", "lit"))

for tool in ("kilnc", "kiln-opt"):
    if not os.path.exists(os.path.join(kiln_tools_dir, tool)):
        lit_config.warning("%s not found in %s" % (tool, kiln_tools_dir))

# Tools come from the Kiln build first, then LLVM (FileCheck, not, count).
config.environment["PATH"] = os.pathsep.join(
    [kiln_tools_dir, llvm_tools_dir, config.environment.get("PATH", "")])
config.environment["FILECHECK_OPTS"] = "--enable-var-scope"
# Keep kilnc's colored or localized output out of the checks.
config.environment.pop("TERM", None)

config.substitutions.append(("%kilnc", os.path.join(kiln_tools_dir, "kilnc")))
config.substitutions.append(("%kiln-opt", os.path.join(kiln_tools_dir, "kiln-opt")))
config.substitutions.append(
    ("%mkonnx", '"%s" "%s"' % (python_executable,
                               os.path.join(kiln_src_root, "test", "tools", "mkonnx.py"))))
# Before lit's own %p (source dir), which would otherwise eat "%python".
config.substitutions.append(("%python", '"%s"' % python_executable))
config.substitutions.append(("%kiln_src_root", kiln_src_root))

# "gpu" when a CUDA driver can be loaded here: tests of the no-GPU behaviour
# say UNSUPPORTED: gpu, tests that need one REQUIRES: gpu.
try:
    import ctypes
    ctypes.CDLL("libcuda.so.1")
    config.available_features.add("gpu")
except OSError:
    pass

# "nvdisasm" when scripts/wgmma_hazards.py finds one (scripts/bootstrap.sh
# installs the nvidia-cuda-nvdisasm wheel): the SASS checks of the wgmma
# kernels REQUIRES: nvdisasm. %wgmma-hazards runs the check on engines.
import subprocess

_hazards = os.path.join(kiln_src_root, "scripts", "wgmma_hazards.py")
try:
    _nvdisasm = subprocess.run([python_executable, _hazards, "--which"],
                               capture_output=True, text=True, timeout=60).stdout.strip()
except (OSError, subprocess.SubprocessError):
    _nvdisasm = ""
if _nvdisasm:
    config.available_features.add("nvdisasm")
    config.substitutions.append(
        ("%wgmma-hazards", '"%s" "%s" --nvdisasm "%s" --inspect "%s"' % (
            python_executable, _hazards, _nvdisasm,
            os.path.join(kiln_tools_dir, "kiln-inspect"))))
