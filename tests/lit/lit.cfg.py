# lit configuration for Systole's FileCheck tests. One behaviour per small file; `%systole` is the
# driver, `%configs` the shipped ISA configs, `%inputs` this suite's shared inputs, `%bundled` the committed model.
import os
import lit.formats

config.name = "systole"
config.test_format = lit.formats.ShTest(execute_external=True)
config.suffixes = [".s", ".yaml", ".test"]
config.excludes = ["Inputs", "lit.cfg.py", "lit.site.cfg.py.in"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.systole_obj_root, "tests", "lit")

config.environment["PATH"] = os.pathsep.join(
    [config.llvm_tools_dir, config.systole_tools_dir, config.environment.get("PATH", os.environ["PATH"])])
config.environment["SYSTEMC_DISABLE_COPYRIGHT_MESSAGE"] = "1"
# `run`'s compile cache goes to the build tree, never to the user's home (tests that check the
# cache point XDG_CACHE_HOME at their own %t).
config.environment["XDG_CACHE_HOME"] = os.path.join(config.test_exec_root, "xdg-cache")

# systole sim --rtl=array exists only when the build found Verilator.
if getattr(config, "systole_rtl_cosim", False):
    config.available_features.add("rtl-cosim")

config.substitutions.append(("%systole", os.path.join(config.systole_tools_dir, "systole")))
config.substitutions.append(("%configs", os.path.join(config.systole_src_root, "isa", "configs")))
config.substitutions.append(("%examples", os.path.join(config.systole_src_root, "isa", "examples")))
config.substitutions.append(("%bundled", os.path.join(config.systole_src_root, "tests", "models", "bundled")))
config.substitutions.append(("%docs", os.path.join(config.systole_src_root, "docs")))
