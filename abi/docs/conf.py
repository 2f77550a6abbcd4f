# SPDX-License-Identifier: GPL-2.0
# Sphinx configuration of dmaguard's documentation (`make docs`): the
# kernel's kernel-doc directive, from the linux-source tarball
# (build/tools/linux, scripts/deps.sh), over the public headers.
import os
import sys

top = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
tools = os.path.join(top, "build", "tools", "linux")
sys.path.insert(0, os.path.join(tools, "Documentation", "sphinx"))

project = "dmaguard"
author = "dmaguard developers"
copyright = "dmaguard developers"
extensions = ["kerneldoc"]
kerneldoc_bin = os.path.join(tools, "scripts", "kernel-doc")
kerneldoc_srctree = top
primary_domain = "c"
highlight_language = "c"
html_theme = "alabaster"
html_title = "dmaguard"
html_static_path = []
exclude_patterns = ["conf.py"]
