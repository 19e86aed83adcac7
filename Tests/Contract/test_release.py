"""The release artifact as a user gets it: the tarball `make dist` built (as the release workflow builds
it) runs in a bare Debian root file system with nothing but the C library, installs through install.sh,
and passes the Homebrew formula's install and test blocks; the scripts the release workflow runs
(smoke test, linkage check, formula and install.sh rendering, the image's build context) do what they
say, and refuse what they must.

Run by `make test-dist` (make dist first; `make test` runs it as its own step), with
CAMPAIGN_MOCK_DIST_DIR naming the directory of the artifacts (default dist/). The bare-Debian test
needs root and debootstrap, and makes its root file system once in .build-dist/rootfs from the Debian
mirror this machine's apt uses.
"""
import hashlib
import json
import os
import pathlib
import platform
import queue
import re
import shlex
import shutil
import signal
import subprocess
import tarfile
import socket
import threading
import time

import pytest
import requests

ROOT = pathlib.Path(__file__).resolve().parents[2]
DIST = pathlib.Path(os.environ.get("CAMPAIGN_MOCK_DIST_DIR", ROOT / "dist")).resolve()
ARCH = platform.machine()
ROOTFS = ROOT / ".build-dist" / "rootfs"
# What the binary may link on Linux: the C library family and the dynamic loader.
ALLOWED = re.compile(r"^(linux-vdso\.so\.1|lib(c|m|dl|pthread|rt|util)\.so\.[0-9]+|(/lib[0-9]*/|/usr/lib[0-9]*/)?"
                     r"ld-linux[-a-z0-9_.]*\.so\.[0-9]+)$")


def sha256(path):
    return hashlib.sha256(pathlib.Path(path).read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def artifact():
    """The newest dist/campaign-mock-<version>-linux-<arch>.tar.gz of this machine."""
    found = sorted(DIST.glob(f"campaign-mock-*-linux-{ARCH}.tar.gz"), key=lambda path: path.stat().st_mtime)
    if not found:
        pytest.skip(f"no campaign-mock-*-linux-{ARCH}.tar.gz in {DIST}: run make dist (make test-dist does)")
    return found[-1]


@pytest.fixture(scope="module")
def version(artifact):
    return re.fullmatch(rf"campaign-mock-(.+)-linux-{ARCH}\.tar\.gz", artifact.name).group(1)


def extract(tarball, folder):
    """Unpacks with the "data" filter where this Python has it (Debian 12's 3.11.2 does not)."""
    if hasattr(tarfile, "data_filter"):
        tarball.extractall(folder, filter="data")
    else:
        tarball.extractall(folder)


@pytest.fixture(scope="module")
def binary(artifact, tmp_path_factory):
    unpacked = tmp_path_factory.mktemp("artifact")
    with tarfile.open(artifact) as tarball:
        extract(tarball, unpacked)
    return unpacked / "campaign-mock"


def ldd_libraries(output):
    """The first word of each line of ldd's output: the library's name, or the loader's path."""
    return [line.split()[0] for line in output.splitlines() if line.strip()]


def fake_binary(directory, serve="exit 3"):
    """A stand-in campaign-mock (a shell script) that prints a version and runs SERVE for `serve`."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / "campaign-mock"
    path.write_text('#!/bin/sh\ncase "$1" in\nversion) echo "campaign-mock 9.9.9" ;;\n'
                    f'serve) {serve} ;;\n*) exit 2 ;;\nesac\n')
    path.chmod(0o755)
    return path


def package(stage, tarball):
    """scripts/package.sh: the tarball and its .sha256, as make dist writes them."""
    subprocess.run([ROOT / "scripts/package.sh", stage, tarball], check=True)
    return tarball


# The artifact itself.

def test_the_artifact_is_the_binarys_version_with_its_checksum_and_files(artifact, version, binary):
    assert subprocess.run([binary, "version"], capture_output=True, text=True, check=True).stdout.split()[:2] == [
        "campaign-mock", version]
    checksum = artifact.with_name(artifact.name + ".sha256").read_text()
    assert checksum == f"{sha256(artifact)}  {artifact.name}\n"
    assert subprocess.run(["sha256sum", "-c", checksum.split()[1] + ".sha256"], cwd=artifact.parent,
                          capture_output=True).returncode == 0
    with tarfile.open(artifact) as tarball:
        members = {member.name: member for member in tarball.getmembers()}
    expected = {"campaign-mock", "README.md"} | ({"LICENSE"} if (ROOT / "LICENSE").exists() else set())
    assert set(members) == expected
    assert members["campaign-mock"].mode & 0o111


def test_the_binary_links_only_the_c_library(binary):
    output = subprocess.run(["ldd", binary], capture_output=True, text=True, check=True).stdout
    libraries = ldd_libraries(output)
    assert any(name.startswith("libc.so") for name in libraries), output
    assert [name for name in libraries if not ALLOWED.match(name)] == [], output


def test_the_linkage_check_passes_the_artifact_and_refuses_a_toolchain_build(binary, tmp_path):
    passed = subprocess.run([ROOT / "scripts/check-linkage.sh", binary], capture_output=True, text=True)
    assert passed.returncode == 0, passed.stdout + passed.stderr
    # A binary linking a library outside the C library family: the Swift runtime, OpenSSL, ...
    refused = subprocess.run([ROOT / "scripts/check-linkage.sh", shutil.which("ruby") or "/usr/bin/python3"],
                             capture_output=True, text=True)
    assert refused.returncode != 0 and "links libraries a bare system may not have" in refused.stderr


def test_the_smoke_test_passes_the_artifact(binary):
    smoke = subprocess.run([ROOT / "scripts/smoke-test.sh", binary], capture_output=True, text=True, timeout=120)
    assert smoke.returncode == 0, smoke.stdout + smoke.stderr
    assert "stopped cleanly on SIGTERM" in smoke.stdout


def test_the_smoke_test_fails_a_binary_that_does_not_serve(tmp_path):
    smoke = subprocess.run([ROOT / "scripts/smoke-test.sh", fake_binary(tmp_path)], capture_output=True,
                           text=True, timeout=60)
    assert smoke.returncode != 0 and "the server exited" in smoke.stderr


def load_commands(*objects):
    """`otool -l` of an archive whose objects name these (command, version) pairs, as macOS prints it."""
    lines = ["Archive : libx.a"]
    for index, (command, version) in enumerate(objects):
        lines += [f"libx.a(x{index}.o):", "Load command 0", "      cmd LC_SEGMENT_64", "  cmdsize 232",
                  "Load command 1", f"      cmd {command}", "  cmdsize 24"]
        lines += ([" platform 1", f"    minos {version}", "      sdk 26.0", "   ntools 0"]
                  if command == "LC_BUILD_VERSION" else [f"  version {version}", "      sdk 15.0"])
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("objects, code, message", [
    ([("LC_BUILD_VERSION", "15.0"), ("LC_BUILD_VERSION", "14.2")], 0, "libx.a: macOS 15.0"),
    ([("LC_VERSION_MIN_MACOSX", "10.13")], 0, "libx.a: macOS 10.13"),
    ([("LC_BUILD_VERSION", "15")], 0, "libx.a: macOS 15"),
    ([("LC_BUILD_VERSION", "14.0"), ("LC_BUILD_VERSION", "26.0")], 1,
     "libx.a is built for macOS 26.0, newer than the 15.0 the release claims"),
    ([("LC_BUILD_VERSION", "15.0.1")], 1, "built for macOS 15.0.1, newer"),
    ([], 1, "libx.a names no macOS version"),
])
def test_the_macos_target_check_refuses_objects_built_for_a_newer_macos(objects, code, message, tmp_path):
    """scripts/check-macos-target.sh reads otool -l, which only a Mac has: here a stand-in prints its output."""
    (tmp_path / "otool.txt").write_text(load_commands(*objects))
    otool = tmp_path / "bin" / "otool"
    otool.parent.mkdir()
    otool.write_text(f'#!/bin/sh\n[ "$1" = -l ] && [ "$2" = libx.a ] && cat {tmp_path / "otool.txt"}\n')
    otool.chmod(0o755)
    result = subprocess.run([ROOT / "scripts/check-macos-target.sh", "15.0", "libx.a"], capture_output=True,
                            text=True, env={"PATH": f"{otool.parent}:/usr/bin:/bin"})
    assert result.returncode == code, result.stdout + result.stderr
    assert message in (result.stdout if code == 0 else result.stderr)


# A bare Debian: debootstrap --variant=minbase, the binary alone in it.

def debian_mirror():
    """The Debian mirror this machine's apt uses (deb822 or one-line sources), else Debian's own."""
    sources = [pathlib.Path("/etc/apt/sources.list"), *sorted(pathlib.Path("/etc/apt/sources.list.d").glob("*"))]
    for source in sources:
        if not source.is_file() or not source.name.endswith((".list", ".sources")):
            continue
        for match in re.finditer(r"(?:^URIs:|^deb)\s+(?:\[[^]]*\]\s+)?(\S+)", source.read_text(), re.M):
            if re.search(r"/debian/?$", match.group(1)):
                return match.group(1)
    return "http://deb.debian.org/debian"


def unmount_under(path):
    """Unmounts whatever an interrupted debootstrap left mounted under PATH, deepest first."""
    mounts = [line.split()[1] for line in pathlib.Path("/proc/mounts").read_text().splitlines()]
    for mount in sorted((m for m in mounts if m.startswith(str(path) + "/")), key=len, reverse=True):
        subprocess.run(["umount", "-l", mount], check=False)


@pytest.fixture(scope="module")
def rootfs():
    if os.geteuid() != 0:
        pytest.skip("the bare-Debian test needs root (chroot, debootstrap)")
    if not shutil.which("debootstrap"):
        pytest.skip("the bare-Debian test needs debootstrap (make test-dist installs it)")
    if subprocess.run(["unshare", "--mount", "--propagation", "private", "true"], capture_output=True).returncode:
        pytest.skip("the bare-Debian test needs mount namespaces (unshare --mount), which an unprivileged "
                    "container does not allow")
    marker = ROOTFS / ".campaign-mock-rootfs"
    if not marker.exists():
        partial = ROOTFS.with_name("rootfs.partial")
        unmount_under(partial)
        shutil.rmtree(partial, ignore_errors=True)
        shutil.rmtree(ROOTFS, ignore_errors=True)
        partial.parent.mkdir(parents=True, exist_ok=True)
        mirror = debian_mirror()
        made = subprocess.run(["debootstrap", "--variant=minbase", "bookworm", partial, mirror],
                              capture_output=True, text=True, timeout=900)
        unmount_under(partial)
        assert made.returncode == 0, f"debootstrap from {mirror} failed:\n{made.stdout[-3000:]}{made.stderr[-3000:]}"
        (partial / ".campaign-mock-rootfs").write_text(f"debootstrap --variant=minbase bookworm {mirror}\n")
        partial.rename(ROOTFS)
    for library in ("libsqlite3.so*", "libssl.so*", "libcrypto.so*"):
        assert not list((ROOTFS / "usr/lib").glob(f"*/{library}")), f"the Debian in {ROOTFS} has {library}: not bare"
    return ROOTFS


def in_rootfs(rootfs, *command, user=None):
    """COMMAND run in ROOTFS as on a booted system, with /proc mounted (the Swift runtime reads its
    arguments from /proc/self/cmdline), in a mount namespace of its own: the mount goes with the process.
    Each step execs the next, so the process's id is the command's and signals reach it. USER is
    "uid:gid" to run as."""
    chroot = ["chroot", f"--userspec={user}"] if user else ["chroot"]
    return ["unshare", "--mount", "--propagation", "private", "sh", "-c",
            'mount -t proc proc "$0/proc" && exec "$@"', str(rootfs), *chroot, str(rootfs), *map(str, command)]


@pytest.fixture
def installed_in_rootfs(rootfs, binary):
    target = rootfs / "usr/local/bin/campaign-mock"
    shutil.copy2(binary, target)
    yield "/usr/local/bin/campaign-mock"
    target.unlink(missing_ok=True)
    shutil.rmtree(rootfs / "var/lib/campaign-mock-test", ignore_errors=True)


def test_in_a_bare_debian_it_links_only_the_c_library(rootfs, installed_in_rootfs):
    output = subprocess.run(in_rootfs(rootfs, "ldd", installed_in_rootfs), capture_output=True, text=True)
    assert output.returncode == 0 and "not found" not in output.stdout, output.stdout + output.stderr
    libraries = ldd_libraries(output.stdout)
    assert [name for name in libraries if not ALLOWED.match(name)] == [], output.stdout


def read_banner(process, timeout=60):
    """Lines of the server's banner until 'Stop with Ctrl-C', read on a thread so a silent server times out."""
    lines = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in process.stdout], daemon=True).start()
    banner = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            line = lines.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            break
        banner.append(line)
        if "Stop with Ctrl-C" in line:
            break
    return "".join(banner)


def test_in_a_bare_debian_it_serves_registers_and_stops_cleanly(rootfs, installed_in_rootfs):
    # The chroot shares this machine's network: the requests come from here, over loopback.
    server = subprocess.Popen(in_rootfs(rootfs, installed_in_rootfs, "serve", "--port", "0",
                                        "--data-dir", "/var/lib/campaign-mock-test"),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        banner = read_banner(server)
        match = re.search(r"http://127\.0\.0\.1:(\d+)", banner)
        assert match and "Stop with Ctrl-C" in banner, f"no banner:\n{banner}"
        url = match.group(0)
        assert requests.get(f"{url}/_mock/ready", timeout=10).json() == {"ready": True}
        registered = requests.post(f"{url}/nms/mobile/1/registerIOS.jssp", timeout=10, data={
            "registrationToken": "bare-debian-token", "mobileAppUuid": "campaign-mock-demo-ios",
            "userKey": "bare@example.com", "deviceModel": "iPhone", "osName": "iOS"})
        assert registered.status_code == 200 and registered.text == "OK"
        devices = requests.get(f"{url}/_mock/devices", params={"token": "bare-debian-token"}, timeout=10).json()
        assert [device["userKey"] for device in devices["devices"]] == ["bare@example.com"]
        # The state is SQLite in the chroot's file system.
        assert list((rootfs / "var/lib/campaign-mock-test").glob("*.sqlite3"))
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            status = server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            raise
    assert status == 0, f"exited {status} on SIGTERM:\n{server.stderr.read()}"


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_in_a_bare_debian_the_images_health_check_follows_the_server(rootfs, installed_in_rootfs):
    """The images' HEALTHCHECK, `campaign-mock health`, with their settings and their non-root user
    (65532) and nothing but the C library around: 1 before the server listens, 0 while it serves, 1 after."""
    data = rootfs / "var/lib/campaign-mock-test"
    data.mkdir(parents=True, exist_ok=True)
    os.chown(data, 65532, 65532)
    env = dict(os.environ, CAMPAIGN_MOCK_HOST="127.0.0.1", CAMPAIGN_MOCK_PORT=str(free_port()),
               CAMPAIGN_MOCK_DATA_DIR="/var/lib/campaign-mock-test")

    def health():
        return subprocess.run(in_rootfs(rootfs, installed_in_rootfs, "health", user="65532:65532"), env=env,
                              capture_output=True, text=True, timeout=30)

    assert health().returncode == 1
    server = subprocess.Popen(in_rootfs(rootfs, installed_in_rootfs, "serve", user="65532:65532"), env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        banner = read_banner(server)
        assert f"http://127.0.0.1:{env['CAMPAIGN_MOCK_PORT']}" in banner, f"no banner:\n{banner}"
        ready = health()
        assert ready.returncode == 0, ready.stdout + ready.stderr
    finally:
        server.send_signal(signal.SIGTERM)
        status = server.wait(timeout=30)
    assert status == 0, server.stderr.read()
    assert health().returncode == 1
    assert [path.stat().st_uid for path in data.glob("*.sqlite3")] == [65532]


def test_in_a_bare_debian_the_release_smoke_test_passes(rootfs, installed_in_rootfs, tmp_path):
    # scripts/smoke-test.sh as the release workflow runs it, the binary running in the bare Debian (each
    # step execs the next, so the smoke test's SIGTERM reaches the server itself).
    wrapper = tmp_path / "campaign-mock"
    wrapper.write_text("#!/bin/sh\nexec " + " ".join(f"'{word}'" for word in in_rootfs(rootfs, installed_in_rootfs))
                       + ' "$@"\n')
    wrapper.chmod(0o755)
    smoke = subprocess.run([ROOT / "scripts/smoke-test.sh", wrapper], capture_output=True, text=True, timeout=120)
    assert smoke.returncode == 0, smoke.stdout + smoke.stderr
    assert "stopped cleanly on SIGTERM" in smoke.stdout


# install.sh

def fake_uname(directory, system, machine):
    directory.mkdir(parents=True, exist_ok=True)
    uname = directory / "uname"
    uname.write_text(f'#!/bin/sh\ncase "$1" in\n-s) echo {system} ;;\n-m) echo {machine} ;;\n*) echo {system} ;;\nesac\n')
    uname.chmod(0o755)
    return directory


def fake_sw_vers(directory, version):
    """A stand-in for macOS's sw_vers, printing VERSION for -productVersion."""
    directory.mkdir(parents=True, exist_ok=True)
    sw_vers = directory / "sw_vers"
    sw_vers.write_text(f'#!/bin/sh\n[ "$1" = -productVersion ] && echo {version}\n')
    sw_vers.chmod(0o755)
    return directory


def install(*arguments, env=None, home, path_dirs=(), script=ROOT / "install.sh"):
    environment = {"HOME": str(home), "PATH": os.pathsep.join([*map(str, path_dirs), "/usr/bin", "/bin"])}
    environment.update(env or {})
    return subprocess.run(["sh", script, *map(str, arguments)], env=environment, capture_output=True, text=True,
                          timeout=120)


@pytest.fixture
def releases(artifact, tmp_path):
    """A directory laid out as a release's downloads: the real tarball and its checksum."""
    directory = tmp_path / "releases"
    directory.mkdir()
    for path in (artifact, artifact.with_name(artifact.name + ".sha256")):
        shutil.copy2(path, directory)
    return directory


def test_install_sh_installs_the_artifact_from_a_directory(releases, version, tmp_path):
    bin_dir = tmp_path / "tools" / "bin"
    result = install("--version", version, "--download-url", releases, "--bin-dir", bin_dir, home=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"SHA-256 checked: {sha256(releases / f'campaign-mock-{version}-linux-{ARCH}.tar.gz')}" in result.stdout
    assert f"{bin_dir} is not on your PATH" in result.stdout
    assert subprocess.run([bin_dir / "campaign-mock", "version"], capture_output=True, text=True).stdout.split()[:2] == [
        "campaign-mock", version]


def test_install_sh_defaults_to_home_local_bin_and_takes_file_urls_and_variables(releases, version, tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    result = install(home=home, path_dirs=[home / ".local/bin"],
                     env={"CAMPAIGN_MOCK_DOWNLOAD_URL": f"file://{releases}", "CAMPAIGN_MOCK_VERSION": f"v{version}"})
    assert result.returncode == 0, result.stdout + result.stderr
    assert (home / ".local/bin/campaign-mock").stat().st_mode & 0o111
    assert "not on your PATH" not in result.stdout
    prefix = tmp_path / "prefix"
    result = install("--download-url", f"file://{releases}", home=home,
                     env={"CAMPAIGN_MOCK_PREFIX": str(prefix), "CAMPAIGN_MOCK_VERSION": version})
    assert result.returncode == 0, result.stdout + result.stderr
    assert (prefix / "bin/campaign-mock").exists()


def test_install_sh_refuses_a_checksum_mismatch_and_installs_nothing(tmp_path):
    releases = tmp_path / "releases"
    tarball = package(fake_binary(tmp_path / "stage").parent, releases / f"campaign-mock-9.9.9-linux-{ARCH}.tar.gz")
    checksum = tarball.with_name(tarball.name + ".sha256")
    checksum.write_text(f"{'0' * 64}  {tarball.name}\n")
    bin_dir = tmp_path / "bin"
    result = install("--version", "9.9.9", "--download-url", releases, "--bin-dir", bin_dir, home=tmp_path)
    assert result.returncode != 0
    assert f"checksum mismatch for {tarball.name}: expected {'0' * 64}, got {sha256(tarball)}" in result.stderr
    assert not (bin_dir / "campaign-mock").exists()


def test_install_sh_refuses_an_unknown_architecture_or_system(tmp_path):
    for system, machine, message in [("Linux", "riscv64", "no Linux build for riscv64"),
                                     ("Darwin", "ppc", "no macOS build for ppc"),
                                     ("FreeBSD", "amd64", "no build for FreeBSD")]:
        fake = fake_uname(tmp_path / f"{system}-{machine}", system, machine)
        result = install("--version", "9.9.9", "--download-url", tmp_path, "--bin-dir", tmp_path / "bin",
                         home=tmp_path, path_dirs=[fake])
        assert result.returncode != 0 and message in result.stderr, result.stderr
    assert not (tmp_path / "bin").exists()


def test_install_sh_takes_the_universal_tarball_on_either_mac(tmp_path):
    releases = tmp_path / "releases"
    package(fake_binary(tmp_path / "stage").parent, releases / "campaign-mock-9.9.9-macos-universal.tar.gz")
    for machine, macos in (("arm64", "15.0"), ("x86_64", "26.1")):
        bin_dir = tmp_path / machine
        result = install("--version", "9.9.9", "--download-url", releases, "--bin-dir", bin_dir, home=tmp_path,
                         path_dirs=[fake_uname(tmp_path / f"uname-{machine}", "Darwin", machine),
                                    fake_sw_vers(tmp_path / f"sw_vers-{macos}", macos)])
        assert result.returncode == 0, result.stderr
        assert "campaign-mock-9.9.9-macos-universal.tar.gz" in result.stdout
        assert "installed campaign-mock 9.9.9" in result.stdout


def test_install_sh_refuses_a_mac_older_than_macos_15_before_downloading(tmp_path):
    releases = tmp_path / "releases"
    package(fake_binary(tmp_path / "stage").parent, releases / "campaign-mock-9.9.9-macos-universal.tar.gz")
    mac = fake_uname(tmp_path / "uname", "Darwin", "arm64")
    for macos, message in (("14.7.1", "campaign-mock needs macOS 15 (Sequoia) or newer, and this Mac runs macOS 14.7.1"),
                           ("10.15.7", "this Mac runs macOS 10.15.7"),
                           ("", "cannot tell this Mac's version")):
        result = install("--version", "9.9.9", "--download-url", releases, "--bin-dir", tmp_path / "bin",
                         home=tmp_path, path_dirs=[mac, fake_sw_vers(tmp_path / f"sw_vers-{macos}", macos)])
        assert result.returncode != 0 and message in result.stderr, result.stderr
        assert "downloading" not in result.stdout
    assert not (tmp_path / "bin").exists()


def test_install_sh_reports_a_binary_that_does_not_start_and_keeps_the_one_installed(tmp_path):
    stage = tmp_path / "stage"
    stage.mkdir()
    broken = stage / "campaign-mock"
    broken.write_text("#!/bin/sh\necho 'dyld[501]: Symbol not found: _pthread_mutex_test' >&2\nexit 134\n")
    broken.chmod(0o755)
    releases = tmp_path / "releases"
    package(stage, releases / f"campaign-mock-9.9.9-linux-{ARCH}.tar.gz")
    bin_dir = tmp_path / "bin"
    fake_binary(bin_dir)
    result = install("--version", "9.9.9", "--download-url", releases, "--bin-dir", bin_dir, home=tmp_path)
    assert result.returncode != 0
    assert "the downloaded campaign-mock does not start on this machine; nothing was installed" in result.stderr
    assert "dyld[501]: Symbol not found: _pthread_mutex_test" in result.stderr
    assert "installed" not in result.stdout
    assert sorted(path.name for path in bin_dir.iterdir()) == ["campaign-mock"]
    assert subprocess.run([bin_dir / "campaign-mock", "version"], capture_output=True, text=True).stdout == (
        "campaign-mock 9.9.9\n"), "the campaign-mock installed before is still there"


def test_install_sh_needs_a_version_when_it_cannot_ask_for_the_latest(tmp_path):
    result = install("--download-url", tmp_path, "--bin-dir", tmp_path / "bin", home=tmp_path)
    assert result.returncode != 0 and "pass --version X.Y.Z" in result.stderr


# The release's rendering of install.sh and the Homebrew formula (scripts/render-release.py).

def fake_checksums(directory, version, real=None):
    """A .sha256 for each platform the formula names; REAL (an artifact path) keeps its own."""
    directory.mkdir(parents=True, exist_ok=True)
    digests = {}
    for index, name in enumerate(("macos-universal", "linux-x86_64", "linux-aarch64")):
        tarball = f"campaign-mock-{version}-{name}.tar.gz"
        digest = hashlib.sha256(f"{name}{index}".encode()).hexdigest()
        if real is not None and real.name == tarball:
            shutil.copy2(real, directory)
            digest = sha256(real)
        (directory / f"{tarball}.sha256").write_text(f"{digest}  {tarball}\n")
        digests[name] = digest
    return digests


def render(version, dist, formula, install_sh, repository="example-org/campaign-mock"):
    return subprocess.run([ROOT / "scripts/render-release.py", "--version", version, "--repository", repository,
                           "--dist", dist, "--formula", formula, "--install-sh", install_sh],
                          capture_output=True, text=True)


def shim(formula, source, prefix):
    return subprocess.run(["ruby", ROOT / "Tests/Contract/homebrew_shim.rb", formula, source, prefix],
                          capture_output=True, text=True, timeout=120)


@pytest.fixture
def ruby():
    if not shutil.which("ruby"):
        pytest.skip("needs Ruby (make test-dist installs it)")


def test_the_formula_in_the_repository_is_valid_ruby(ruby):
    assert subprocess.run(["ruby", "-c", ROOT / "Formula/campaign-mock.rb"], capture_output=True).returncode == 0


def test_render_release_fills_in_the_formula_and_install_sh(ruby, tmp_path):
    digests = fake_checksums(tmp_path / "dist", "1.2.3")
    formula = tmp_path / "campaign-mock.rb"
    shutil.copy2(ROOT / "Formula/campaign-mock.rb", formula)
    rendered = render("v1.2.3", tmp_path / "dist", formula, tmp_path / "install.sh")
    assert rendered.returncode == 0, rendered.stderr
    text = formula.read_text()
    assert 'version "1.2.3"' in text and 'homepage "https://github.com/example-org/campaign-mock"' in text
    assert "OWNER" not in text and "0" * 64 not in text
    assert subprocess.run(["ruby", "-c", formula], capture_output=True).returncode == 0
    # What the formula declares, read by the shim (it installs and tests a stand-in that serves nothing:
    # the test block must fail, after the declarations were read).
    source = fake_binary(tmp_path / "source", serve="sleep 60").parent
    declared = shim(formula, source, tmp_path / "prefix")
    assert declared.returncode != 0, "the formula's test block passed a binary that serves nothing"
    assert "Formula::AssertionFailed" in declared.stderr, declared.stderr
    install_sh = (tmp_path / "install.sh").read_text()
    assert 'repository="example-org/campaign-mock"' in install_sh and 'release_version="1.2.3"' in install_sh
    assert os.access(tmp_path / "install.sh", os.X_OK)
    base = "https://github.com/example-org/campaign-mock/releases/download/v1.2.3"
    for name, digest in digests.items():
        assert f'url "{base}/campaign-mock-1.2.3-{name}.tar.gz"\n' in text
        assert text.index(f'sha256 "{digest}"') > text.index(f"campaign-mock-1.2.3-{name}.tar.gz")


def test_render_release_refuses_missing_or_malformed_checksums(tmp_path):
    fake_checksums(tmp_path / "dist", "1.2.3")
    formula = tmp_path / "campaign-mock.rb"
    shutil.copy2(ROOT / "Formula/campaign-mock.rb", formula)
    (tmp_path / "dist/campaign-mock-1.2.3-linux-aarch64.tar.gz.sha256").write_text("not-a-digest  x\n")
    refused = render("1.2.3", tmp_path / "dist", formula, tmp_path / "install.sh")
    assert refused.returncode != 0 and "is not one line" in refused.stderr
    (tmp_path / "dist/campaign-mock-1.2.3-linux-aarch64.tar.gz.sha256").unlink()
    refused = render("1.2.3", tmp_path / "dist", formula, tmp_path / "install.sh")
    assert refused.returncode != 0 and "linux-aarch64.tar.gz.sha256 is missing" in refused.stderr
    assert formula.read_text() == (ROOT / "Formula/campaign-mock.rb").read_text()
    assert not (tmp_path / "install.sh").exists()
    assert render("1.2", tmp_path / "dist", formula, tmp_path / "install.sh").returncode != 0


def test_the_rendered_install_sh_installs_its_release_without_a_version(artifact, version, tmp_path):
    dist = tmp_path / "dist"
    fake_checksums(dist, version, real=artifact)
    shutil.copy2(ROOT / "Formula/campaign-mock.rb", tmp_path / "campaign-mock.rb")
    assert render(version, dist, tmp_path / "campaign-mock.rb", tmp_path / "install.sh").returncode == 0
    result = install("--download-url", dist, "--bin-dir", tmp_path / "bin", home=tmp_path,
                     script=tmp_path / "install.sh")
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"campaign-mock-{version}-linux-{ARCH}.tar.gz" in result.stdout


def test_the_formulas_install_and_test_blocks_pass_on_the_artifact(ruby, artifact, version, binary, tmp_path):
    """brew install + brew test, as far as they go without Homebrew: the rendered formula's install
    block puts the artifact's binary in bin, and its test block serves, checks /_mock/ready, registers
    and stops the server (Tests/Contract/homebrew_shim.rb)."""
    digests = fake_checksums(tmp_path / "dist", version, real=artifact)
    formula = tmp_path / "campaign-mock.rb"
    shutil.copy2(ROOT / "Formula/campaign-mock.rb", formula)
    assert render(version, tmp_path / "dist", formula, tmp_path / "install.sh").returncode == 0
    source = tmp_path / "source"
    with tarfile.open(artifact) as tarball:
        extract(tarball, source)
    result = shim(formula, source, tmp_path / "Cellar")
    assert result.returncode == 0, result.stdout + result.stderr
    declared = json.loads(result.stdout.strip().splitlines()[-1])
    assert declared["version"] == version
    assert declared["depends_on"] == [{"macos": "sequoia"}]
    key = {"x86_64": "linux-intel", "aarch64": "linux-arm"}[ARCH]
    assert declared["urls"][key]["sha256"] == digests[f"linux-{ARCH}"] == sha256(artifact)
    assert declared["urls"][key]["url"].endswith(f"/v{version}/{artifact.name}")
    assert declared["urls"]["macos"]["url"].endswith(f"campaign-mock-{version}-macos-universal.tar.gz")
    assert (tmp_path / "Cellar/bin/campaign-mock").read_bytes() == binary.read_bytes()


# The container image's build context (scripts/release-image-context.sh).

def test_the_image_context_holds_each_architectures_checked_binary(artifact, version, binary, tmp_path):
    dist = tmp_path / "dist"
    dist.mkdir()
    shutil.copy2(artifact, dist)
    shutil.copy2(artifact.with_name(artifact.name + ".sha256"), dist)
    other = {"x86_64": "aarch64", "aarch64": "x86_64"}[ARCH]
    package(fake_binary(tmp_path / "stage").parent, dist / f"campaign-mock-{version}-linux-{other}.tar.gz")
    made = subprocess.run([ROOT / "scripts/release-image-context.sh", version, dist, tmp_path / "image"],
                          capture_output=True, text=True)
    assert made.returncode == 0, made.stderr
    docker_arch = {"x86_64": "amd64", "aarch64": "arm64"}
    assert sha256(tmp_path / f"image/linux-{docker_arch[ARCH]}/campaign-mock") == sha256(binary)
    assert (tmp_path / f"image/linux-{docker_arch[other]}/campaign-mock").read_text().startswith("#!/bin/sh")
    assert (tmp_path / "image/data").is_dir()
    # A tarball that does not match its checksum is refused.
    with open(dist / f"campaign-mock-{version}-linux-{other}.tar.gz", "ab") as tarball:
        tarball.write(b"tampered")
    refused = subprocess.run([ROOT / "scripts/release-image-context.sh", version, dist, tmp_path / "image2"],
                             capture_output=True, text=True)
    assert refused.returncode != 0 and "does not match its .sha256" in refused.stderr


# The release workflow and the Dockerfiles, as far as their shape can be checked here (actionlint,
# hadolint and shellcheck run in make lint).

def test_the_release_workflow_builds_checks_and_publishes_every_artifact():
    import yaml
    workflow = yaml.safe_load((ROOT / ".github/workflows/release.yml").read_text())
    assert workflow[True]["push"]["tags"] == ["v*"]  # YAML 1.1 reads the key `on` as true
    jobs = workflow["jobs"]
    linux = jobs["linux"]
    assert linux["container"].startswith("swift:6.2-jammy")
    assert [entry["runner"] for entry in linux["strategy"]["matrix"]["include"]] == ["ubuntu-24.04", "ubuntu-24.04-arm"]
    runs = {name: "\n".join(step.get("run", "") for step in job["steps"]) for name, job in jobs.items()}
    assert "make dist" in runs["linux"] and "make dist" in runs["macos"]
    for name in ("linux", "macos", "macos-verify"):
        assert 'scripts/smoke-test.sh "$RUNNER_TEMP/unpacked/campaign-mock"' in runs[name], name
        assert "scripts/check-linkage.sh" in runs[name], name
    assert "scripts/macos-universal.sh" in runs["macos-universal"]
    assert "smoke-test.sh --server" in runs["image-test"] and ".State.Health.Status" in runs["image-test"]
    assert "scripts/render-release.py" in runs["release"] and "gh release create" in runs["release"]
    for asset in ("dist/*.tar.gz", "dist/*.sha256", "dist/install.sh", "dist/campaign-mock.rb"):
        assert asset in runs["release"]
    assert set(jobs["release"]["needs"]) == {"linux", "macos-verify", "image-test"}
    assert "linux/amd64,linux/arm64" in runs["image"] and jobs["image"]["needs"] == "release"
    # The JVM client's files, built and tested as make test does, attached to the release (not a registry).
    assert jobs["jvm-client"]["needs"] == "release" and jobs["jvm-client"]["permissions"] == {"contents": "write"}
    assert "clients/jvm/build.sh test" in runs["jvm-client"]
    assert "gh release upload" in runs["jvm-client"]
    assert "clients/jvm/build/*.jar clients/jvm/build/*.pom" in runs["jvm-client"]
    # With the Maven repository folder build.sh packs, for the one `maven { url … }` line.
    assert "clients/jvm/build/campaign-mock-jvm-maven-*.tar.gz" in runs["jvm-client"]


def test_the_admin_apis_description_has_the_products_version():
    """The OpenAPI document's info.version is the version the release is tagged with (the binary's)."""
    source = re.search(r'current = "([^"]+)"',
                       (ROOT / "Sources/CampaignMockModel/CampaignMockVersion.swift").read_text()).group(1)
    openapi = json.loads((ROOT / "Sources/CampaignMockAdmin/API/openapi.json").read_text())
    assert openapi["info"]["version"] == source


@pytest.mark.parametrize("dockerfile", ["docker/Dockerfile", "docker/release.Dockerfile"])
def test_the_images_check_health_without_curl_as_a_non_root_user(dockerfile):
    text = (ROOT / dockerfile).read_text()
    runtime = "\n".join(line for line in text[text.rindex("\nFROM "):].splitlines() if not line.startswith("#"))
    assert 'CMD ["campaign-mock", "health"]' in runtime
    assert "curl" not in runtime and "apt-get" not in runtime
    assert "distroless" in runtime.splitlines()[1] and runtime.splitlines()[1].endswith(":nonroot")
    assert "--chown=65532:65532" in runtime


def test_the_formulas_service_serves_with_https_from_a_data_directory_of_the_users_own(ruby, artifact, version,
                                                                                       tmp_path):
    """brew services start, as far as it goes without Homebrew: the service block's command, evaluated for
    this user (HOME, XDG_DATA_HOME) by the shim, serves HTTP and HTTPS and keeps its state in that user's
    data directory; the ports are free ones (CAMPAIGN_MOCK_PORT, CAMPAIGN_MOCK_TLS_PORT), the command is the
    formula's."""
    fake_checksums(tmp_path / "dist", version, real=artifact)
    formula = tmp_path / "campaign-mock.rb"
    shutil.copy2(ROOT / "Formula/campaign-mock.rb", formula)
    assert render(version, tmp_path / "dist", formula, tmp_path / "install.sh").returncode == 0
    source = tmp_path / "source"
    with tarfile.open(artifact) as tarball:
        extract(tarball, source)
    home = tmp_path / "home"
    home.mkdir()
    environment = {name: value for name, value in os.environ.items() if name != "XDG_DATA_HOME"}
    declared = subprocess.run(["ruby", ROOT / "Tests/Contract/homebrew_shim.rb", formula, source, tmp_path / "Cellar"],
                              capture_output=True, text=True, timeout=120, env=dict(environment, HOME=str(home)))
    assert declared.returncode == 0, declared.stdout + declared.stderr
    service = json.loads(declared.stdout.strip().splitlines()[-1])["service"]
    data = home / ".local/share/campaign-mock/service"
    assert service["run"] == [str(tmp_path / "Cellar/bin/campaign-mock"), "serve", "--tls", "auto", "--data-dir",
                              str(data)]
    assert service["keep_alive"] is True
    assert service["log_path"] == service["error_log_path"] == str(tmp_path / "Cellar/var/log/campaign-mock.log")
    assert not data.exists()

    server = subprocess.Popen(service["run"], env=dict(environment, HOME=str(home), CAMPAIGN_MOCK_PORT="0",
                                                       CAMPAIGN_MOCK_TLS_PORT="0"),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        banner = read_banner(server)
        url = re.search(r"http://127\.0\.0\.1:\d+", banner).group(0)
        https_url = re.search(r"HTTPS +(https://localhost:\d+)", banner).group(1)
        ca = tmp_path / "ca.pem"
        ca.write_bytes(requests.get(f"{url}/_mock/ca", params={"format": "pem"}, timeout=10).content)
        assert requests.get(f"{https_url}/_mock/ready", verify=str(ca), timeout=10).json() == {"ready": True}
        assert (data / "campaign-mock.sqlite3").is_file()
    finally:
        server.send_signal(signal.SIGTERM)
        status = server.wait(timeout=30)
    assert status == 0, server.stderr.read()

    # XDG_DATA_HOME, where the user set one (the install moved the binary out of the first source folder):
    # as the shell has it, and as brew hands it on after clearing its environment (HOMEBREW_XDG_DATA_HOME).
    for index, variable in enumerate(("XDG_DATA_HOME", "HOMEBREW_XDG_DATA_HOME")):
        with tarfile.open(artifact) as tarball:
            extract(tarball, tmp_path / f"source-{variable}")
        declared = subprocess.run(["ruby", ROOT / "Tests/Contract/homebrew_shim.rb", formula,
                                   tmp_path / f"source-{variable}", tmp_path / f"Cellar-{variable}"],
                                  capture_output=True, text=True, timeout=120,
                                  env=dict(environment, HOME=str(home), **{variable: str(tmp_path / f"xdg{index}")}))
        assert json.loads(declared.stdout.strip().splitlines()[-1])["service"]["run"][-1] == \
            str(tmp_path / f"xdg{index}/campaign-mock/service"), variable


# The container image's settings, with the release binary in a bare Debian (no Docker engine here).

def readme_docker_run():
    """The README's `docker run` line: (published container ports, volume target, -e variables, image,
    container name)."""
    readme = (ROOT / "README.md").read_text()
    lines = re.search(r"^(docker run .*?)^```", readme, re.M | re.S).group(1)
    words = shlex.split(lines.replace("\\\n", " "))
    ports, volumes, variables, container = [], [], {}, None
    index = 2
    while words[index].startswith("-"):
        flag = words[index]
        if flag == "--rm":
            index += 1
            continue
        value = words[index + 1]
        if flag == "-p":
            ports.append(int(value.rsplit(":", 1)[1]))
        elif flag == "-v":
            volumes.append(value.split(":")[1])
        elif flag == "-e":
            name, _, setting = value.partition("=")
            variables[name] = setting
        elif flag == "--name":
            container = value
        index += 2
    return ports, volumes, variables, words[index], container


def image_environment():
    """The ENV of docker/release.Dockerfile, the published image."""
    text = (ROOT / "docker/release.Dockerfile").read_text().replace("\\\n", " ")
    line = next(line for line in text.splitlines() if line.startswith("ENV "))
    return dict(word.split("=", 1) for word in shlex.split(line[4:]))


def test_the_readmes_docker_run_line_is_the_one_the_docs_show():
    line = re.search(r"^docker run .*?\n(?:.*\\\n)*.*$", (ROOT / "README.md").read_text(), re.M).group(0)
    for document in ("docs/install.md", "docs/configuration.md"):
        assert line in (ROOT / document).read_text(), document
    ports, volumes, variables, image, container = readme_docker_run()
    assert image.startswith("ghcr.io/OWNER/campaign-mock:")
    # The container is named, so the CLI the docs show runs in it by that name.
    assert container == "campaign-mock"
    for document in ("README.md", "docs/install.md", "docs/configuration.md"):
        assert f"docker exec -i {container} campaign-mock " in (ROOT / document).read_text(), document
    assert volumes == ["/data"] and variables["CAMPAIGN_MOCK_TLS"] == "auto" and variables["CAMPAIGN_MOCK_ADMIN_TOKEN"]
    environment = image_environment()
    # The published ports are those the server listens on in the image: CAMPAIGN_MOCK_PORT, and 8443 for HTTPS.
    assert sorted(ports) == sorted([int(environment["CAMPAIGN_MOCK_PORT"]), 8443])
    assert environment["CAMPAIGN_MOCK_HOST"] == "0.0.0.0"
    assert environment["CAMPAIGN_MOCK_DATA_DIR"] == "/data" and environment["CAMPAIGN_MOCK_CAROOT"].startswith("/data/")


def non_loopback_address():
    """An IPv4 address of this machine other than loopback, or None."""
    output = subprocess.run(["hostname", "-I"], capture_output=True, text=True).stdout.split()
    return next((address for address in output if re.fullmatch(r"[0-9.]+", address)
                 and not address.startswith("127.")), None)


def test_in_a_bare_debian_the_readmes_docker_settings_serve_https_keep_the_ca_and_need_the_token(
        rootfs, installed_in_rootfs, tmp_path):
    """The README's `docker run` line, without an engine: the release binary in a bare Debian with the
    image's ENV and the line's -e variables, as the image's user (65532), its volume a folder of the root
    file system. Only the ports differ: free ones (CAMPAIGN_MOCK_PORT, CAMPAIGN_MOCK_TLS_PORT), where the
    container has the published 8080 and 8443."""
    _, volumes, variables, _, _ = readme_docker_run()
    volume = rootfs / volumes[0].lstrip("/")
    shutil.rmtree(volume, ignore_errors=True)
    volume.mkdir()
    os.chown(volume, 65532, 65532)
    token = variables["CAMPAIGN_MOCK_ADMIN_TOKEN"]
    container = dict(image_environment(), **variables, CAMPAIGN_MOCK_PORT=str(free_port()),
                     CAMPAIGN_MOCK_TLS_PORT=str(free_port()))
    environment = dict(os.environ, **container)

    def serve():
        process = subprocess.Popen(in_rootfs(rootfs, installed_in_rootfs, "serve", user="65532:65532"),
                                   env=environment, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                   start_new_session=True)
        banner = read_banner(process)
        assert re.search(rf"HTTPS +https://\S+:{container['CAMPAIGN_MOCK_TLS_PORT']}\n", banner), \
            f"no HTTPS:\n{banner}{process.stderr.read() if process.poll() is not None else ''}"
        return process

    def stop(process):
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=30) == 0, process.stderr.read()

    def served_ca():
        return requests.get(f"{url}/_mock/ca", params={"format": "pem"}, timeout=10,
                            headers={"Authorization": f"Bearer {token}"})

    url = f"http://127.0.0.1:{container['CAMPAIGN_MOCK_PORT']}"
    https_url = f"https://localhost:{container['CAMPAIGN_MOCK_TLS_PORT']}"
    server = serve()
    try:
        # The admin API wants the token, even on loopback once a token is set; the SDK endpoints do not.
        assert requests.get(f"{url}/_mock/devices", timeout=10).status_code == 401
        ca = served_ca()
        assert ca.status_code == 200 and ca.text.startswith("-----BEGIN CERTIFICATE-----")
        (tmp_path / "ca.pem").write_text(ca.text)
        registered = requests.post(f"{https_url}/nms/mobile/1/registerIOS.jssp", verify=str(tmp_path / "ca.pem"),
                                   timeout=10, data={"registrationToken": "docker-token",
                                                     "mobileAppUuid": "campaign-mock-demo-ios"})
        assert registered.text == "OK"
        # It listens beyond loopback (CAMPAIGN_MOCK_HOST=0.0.0.0): Docker's port mapping reaches it so.
        address = non_loopback_address()
        if address:
            assert requests.get(f"http://{address}:{container['CAMPAIGN_MOCK_PORT']}/_mock/ready",
                                timeout=10).json() == {"ready": True}
        # The CLI in the container (docker compose exec -T): the server on its loopback, the token from
        # the container's environment; without the token it is refused.
        cli = subprocess.run(in_rootfs(rootfs, installed_in_rootfs, "push", "--token", "docker-token", "--title",
                                       "Sale", "--format", "apns", user="65532:65532"),
                             env=environment, capture_output=True, text=True, timeout=60)
        assert cli.returncode == 0 and '"aps"' in cli.stdout, cli.stdout + cli.stderr
        tokenless = {name: value for name, value in environment.items() if name != "CAMPAIGN_MOCK_ADMIN_TOKEN"}
        refused = subprocess.run(in_rootfs(rootfs, installed_in_rootfs, "push", "--token", "docker-token",
                                           "--title", "Sale", user="65532:65532"),
                                 env=tokenless, capture_output=True, text=True, timeout=60)
        assert refused.returncode != 0 and "token" in refused.stderr, refused.stderr
    finally:
        stop(server)

    # A new container on the same volume: the same CA, so devices keep trusting it, and the same state.
    server = serve()
    try:
        assert served_ca().text == ca.text
        devices = requests.get(f"{url}/_mock/devices", params={"token": "docker-token"}, timeout=10,
                               headers={"Authorization": f"Bearer {token}"}).json()
        assert len(devices["devices"]) == 1
    finally:
        stop(server)
    assert (volume / "campaign-mock.sqlite3").is_file()
    assert [path.stat().st_uid for path in volume.rglob("ca-key.pem")] == [65532]
    shutil.rmtree(volume)


def test_in_a_bare_debian_a_bind_mount_of_another_user_is_refused_until_it_is_the_servers(
        rootfs, installed_in_rootfs):
    """docs/configuration.md's bind mount (`-v "$PWD/mock-data:/data"`), without an engine: a folder of the
    host's user (uid 1000 here), served by the image's user (65532), is refused with the owner and the way
    out named; run as the folder's owner (`--user 1000:1000`) it serves; writable by the group, it is
    refused again; chowned to 65532 (`sudo chown 65532:65532 mock-data`), the image's user serves it."""
    mount = rootfs / "var/lib/campaign-mock-test/bind"
    shutil.rmtree(mount, ignore_errors=True)
    mount.mkdir(parents=True)
    os.chown(mount, 1000, 1000)
    os.chmod(mount, 0o755)
    environment = dict(os.environ, CAMPAIGN_MOCK_DATA_DIR="/var/lib/campaign-mock-test/bind")

    def serve(user):
        """(the exit status, its standard error) of a server refused at its start, or ("serving", /_mock/ready's
        answer) of one that printed its banner, stopped again."""
        process = subprocess.Popen(in_rootfs(rootfs, installed_in_rootfs, "serve", "--port", "0", user=user),
                                   env=environment, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                   start_new_session=True)
        banner = read_banner(process)
        match = re.search(r"http://127\.0\.0\.1:(\d+)", banner)
        if not match:
            return process.wait(timeout=30), process.stderr.read()
        ready = requests.get(f"{match.group(0)}/_mock/ready", timeout=10).json()
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=30) == 0, process.stderr.read()
        return ("serving", ready), ""

    status, error = serve("65532:65532")
    assert status != 0 and "belongs to uid 1000, not to this user (uid 65532)" in error, error
    assert "docs/configuration.md" in error and not any(mount.iterdir())
    assert serve("1000:1000")[0] == ("serving", {"ready": True})
    os.chmod(mount, 0o775)
    status, error = serve("1000:1000")
    assert status != 0 and "group or others may write to it (mode 775)" in error, error
    os.chmod(mount, 0o700)
    for path in [mount, *mount.rglob("*")]:
        os.chown(path, 65532, 65532, follow_symlinks=False)
    assert serve("65532:65532")[0] == ("serving", {"ready": True})
    assert [path.stat().st_uid for path in mount.glob("*.sqlite3")] == [65532]
    shutil.rmtree(mount)
