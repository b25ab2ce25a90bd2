"""The `retrylab` command of an installed package (pip install .): runs the CLI program built with
the extension and installed beside it (retrylab/bin/retrylab), with the arguments given."""
import os
import sys


def main():
    exe = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bin", "retrylab")
    if not os.access(exe, os.X_OK):
        sys.stderr.write("retrylab: this copy of the package has no command-line program (it is installed by "
                         "`pip install .`; in a build folder, run build/release/cli/retrylab)\n")
        return 2
    os.execv(exe, [exe, *sys.argv[1:]])
    return 2  # not reached


if __name__ == "__main__":
    sys.exit(main())
