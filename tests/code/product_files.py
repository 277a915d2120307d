"""The product's C++ sources, for the code-shape checks in tests/code/."""
import os


def cpp_files(root, dirs):
    """Paths of the .cpp and .h files under each of `dirs` (relative to `root`), in a stable order."""
    for top in dirs:
        for directory, _, files in sorted(os.walk(os.path.join(root, top))):
            for name in sorted(files):
                if name.endswith((".cpp", ".h")):
                    yield os.path.join(directory, name)
