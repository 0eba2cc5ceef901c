"""Entry point of a face-stage child process: ``python -m docauth.pipeline.face_child PARENT_PID``.

A module of its own that nothing imports: ``-m`` on a module the package has already imported (face_process,
through ``docauth.pipeline``) runs a second copy of it, and Python warns so on the parent's stderr.
"""

import os
import sys

from docauth.pipeline.face_process import serve

if __name__ == "__main__":
    serve(int(sys.argv[1]))
    os._exit(0)  # every reply was flushed as it was sent; a closed pipe must not be flushed again at exit
