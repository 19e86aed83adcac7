"""Where the tests find Adobe's acc-js-sdk and the Node.js modules it loads, and why they skip without.

ACC_JS_SDK_DIR names a folder holding `acc-js-sdk/` (the SDK, unmodified) and `shims/` (stand-ins for npm
packages Debian lacks); Node.js and Debian's node-axios and node-jsdom must be installed.
"""
import functools
import os
import pathlib
import shutil
import subprocess

SDK_DIR = os.environ.get("ACC_JS_SDK_DIR")


def node_path(*first):
    """NODE_PATH: `first`, then Debian's Node packages and the shims."""
    return os.pathsep.join([*first, "/usr/share/nodejs", str(pathlib.Path(SDK_DIR or ".") / "shims")])


@functools.lru_cache(maxsize=None)
def missing():
    """Why the SDK cannot run here, or None."""
    if not SDK_DIR:
        return "ACC_JS_SDK_DIR is not set (it names the folder with acc-js-sdk/ and shims/)"
    if not (pathlib.Path(SDK_DIR) / "acc-js-sdk" / "src" / "index.js").is_file():
        return f"no acc-js-sdk/src/index.js in ACC_JS_SDK_DIR={SDK_DIR}"
    if not shutil.which("node"):
        return "node is not installed (Debian: nodejs node-axios node-jsdom)"
    probe = subprocess.run(["node", "-e", "require('jsdom'); require('axios')"], capture_output=True, text=True,
                           timeout=60, env=dict(os.environ, NODE_PATH=node_path()))
    if probe.returncode != 0:
        return "Node.js cannot load jsdom and axios, which acc-js-sdk needs (Debian: node-jsdom node-axios)"
    return None
