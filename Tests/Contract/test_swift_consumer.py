"""An app's test package that depends on campaign-mock (Examples/SwiftClientConsumer, by path) gets the client
and its model, nothing of the server, and builds without the server's -dev packages:

- docs/swift-client.md's XCUITest is the consumer's test file, so the example compiles in Swift 6 (its
  XCUIApplication part only on iOS: `#if os(iOS)`; on Linux the rest compiles);
- the consumer is built from scratch with every file of libsqlite3-dev, libssl-dev and libnghttp2-dev
  emptied in a mount namespace of its own (/dev/null bound over each: headers, .pc files, static
  archives); the build succeeds, compiles only CampaignMockModel, CampaignMockClient and the consumer's
  own modules, and links the test bundle with none of -lsqlite3, -lssl, -lcrypto, -lnghttp2.

Run by `make test` as its own step (it builds the consumer; a couple of minutes on a busy machine). The
bare build needs root and mount namespaces; without them the consumer is built as it is, and the test
says so.
"""
import os
import pathlib
import re
import shutil
import subprocess

import pytest
import yaml

ROOT = pathlib.Path(__file__).resolve().parents[2]
CONSUMER = ROOT / "Examples/SwiftClientConsumer"
SWIFT = os.environ.get("SWIFT", "swift")
DEV_PACKAGES = ("libsqlite3-dev", "libssl-dev", "libnghttp2-dev")
SERVER_LIBRARIES = ("-lsqlite3", "-lssl", "-lcrypto", "-lnghttp2")


def swift_blocks(document):
    return re.findall(r"^```swift\n(.*?)^```", (ROOT / document).read_text(), re.M | re.S)


def test_the_swift_client_docs_xcuitest_is_the_consumers_test_file():
    test_file = (CONSUMER / "Tests/ConsumerUITests/PushRegistrationUITests.swift").read_text()
    assert test_file in swift_blocks("docs/swift-client.md")


def test_the_docs_depend_on_a_released_version_not_a_branch():
    dependency = swift_blocks("docs/swift-client.md")[0]
    assert re.search(r'\.package\(url: "https://github\.com/[^"]+/campaign-mock", from: "\d+\.\d+\.\d+"\)', dependency)
    assert "branch:" not in (ROOT / "docs/swift-client.md").read_text()


def dev_files():
    """The regular files of the server's -dev packages (not their directories or symlinks)."""
    listed = subprocess.run(["dpkg", "-L", *DEV_PACKAGES], capture_output=True, text=True)
    if listed.returncode != 0:
        return None
    return [path for path in listed.stdout.splitlines() if os.path.isfile(path) and not os.path.islink(path)]


@pytest.fixture(scope="module")
def bare_build(tmp_path_factory):
    """The consumer built from scratch (its own scratch path), the -dev packages emptied if possible.
    Returns (scratch path, build output, hidden files or None)."""
    scratch = tmp_path_factory.mktemp("consumer-build")
    # Warnings are errors here too, as in make's builds (the manifest leaves them to the flag: Package.swift).
    build = [SWIFT, "build", "--build-tests", "--package-path", str(CONSUMER), "--scratch-path", str(scratch),
             "-Xswiftc", "-warnings-as-errors"]
    files = dev_files() if os.geteuid() == 0 and shutil.which("unshare") else None
    if files:
        listing = scratch / "hidden-files"
        listing.write_text("\n".join(files) + "\n")
        # Each file is emptied for this process tree only; the check lines prove it before the build runs.
        command = ["unshare", "--mount", "--propagation", "private", "sh", "-ec",
                   'while IFS= read -r file; do mount --bind /dev/null "$file"; done < "$0"\n'
                   'test ! -s /usr/include/sqlite3.h && test ! -s /usr/include/openssl/ssl.h '
                   '&& test ! -s /usr/include/nghttp2/nghttp2.h\n'
                   '! pkg-config --exists sqlite3 openssl libnghttp2 2>/dev/null\n'
                   'echo "== the -dev packages are empty here"\nexec "$@"', str(listing), *build]
    else:
        command = build
    built = subprocess.run(command, capture_output=True, text=True, timeout=1800)
    assert built.returncode == 0, built.stdout[-4000:] + built.stderr[-4000:]
    if files:
        assert "== the -dev packages are empty here" in built.stdout
    return scratch, built.stdout + built.stderr, files


def test_the_consumer_builds_with_the_servers_dev_packages_emptied(bare_build):
    _, _, files = bare_build
    if not files:
        pytest.skip("needs root, unshare and dpkg to empty the -dev packages: the consumer was built as it is")
    assert any(path.endswith("/sqlite3.h") for path in files)
    assert any(path.endswith("/openssl/ssl.h") for path in files)
    assert any(path.endswith("/nghttp2/nghttp2.h") for path in files)


def built_modules(names):
    """The package's own modules among `names`, less those SwiftPM makes for a test product (its runner and
    discovered tests on Linux, none on macOS: the package's name, then "Package")."""
    return sorted(name for name in set(names) if not name.startswith("SwiftClientConsumerPackage"))


def test_only_the_client_and_its_model_compile_for_the_consumer(bare_build):
    scratch, _, _ = bare_build
    # Where this SwiftPM puts the build (<scratch>/<triple>/debug; the triple differs by platform).
    bin_path = pathlib.Path(subprocess.run(
        [SWIFT, "build", "--package-path", str(CONSUMER), "--scratch-path", str(scratch), "--show-bin-path"],
        capture_output=True, text=True, check=True).stdout.strip())
    compiled = [folder.name.removesuffix(".build") for folder in bin_path.glob("*.build") if any(folder.rglob("*.o"))]
    assert built_modules(compiled) == ["CampaignMockClient", "CampaignMockModel", "ConsumerUITests"]
    # The bundle's link command: the client's and the model's objects, no server library. The bundle is
    # SwiftClientConsumerPackageTests.xctest on Linux, a file inside that folder on macOS.
    # SwiftPM's build manifest, <scratch>/debug.yaml (older versions kept it beside the configuration's folder).
    manifest_file = next(path for path in (scratch / "debug.yaml", bin_path.parent / "debug.yaml") if path.exists())
    manifest = yaml.safe_load(manifest_file.read_text())
    link = next(command for command in manifest["commands"].values()
                if any("/SwiftClientConsumerPackageTests.xctest" in str(output) for output in command.get("outputs", []))
                and command.get("tool") == "shell" and any(str(path).endswith(".o") for path in command["inputs"]))
    modules = [re.search(r"/([^/]+)\.build/", path).group(1) for path in link["inputs"] if ".build/" in path]
    assert built_modules(modules) and set(built_modules(modules)) <= {"CampaignMockClient", "CampaignMockModel",
                                                                      "ConsumerUITests"}, modules
    assert not [argument for argument in link["args"] if argument in SERVER_LIBRARIES]
