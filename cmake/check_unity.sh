#!/usr/bin/env bash
# Checks that the demo preset's unity build (cmake/fast_build.cmake) compiles: each
# batch is syntax-checked (g++ -fsyntax-only, no code generated: about a third of the
# build's CPU time), and the first error of each source is printed. A source that
# defines a file-local name another source of its directory also defines fails here;
# add it to PACER_UNITY_APART. Usage: cmake/check_unity.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/unity-check}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPACER_BUILD_TESTS=OFF -DPACER_BUILD_BENCH=OFF \
  -DPACER_UNITY_BUILD=ON -DPACER_PCH=OFF >/dev/null
# The generated sources the batches include (the embedded web assets).
cmake --build "$build" --target pacer_lib -- -n >/dev/null
ninja -C "$build" generated/html_assets.cc >/dev/null
python3 - "$build" <<'EOF'
import concurrent.futures, json, os, re, shlex, subprocess, sys
build = sys.argv[1]
commands = [c for c in json.load(open(os.path.join(build, "compile_commands.json"))) if "/Unity/" in c["file"]]
def check(c):
    args = shlex.split(c["command"])
    i = args.index("-o"); del args[i:i + 2]
    args = [a for a in args if a != "-c"] + ["-fsyntax-only"]
    done = subprocess.run(args, cwd=c["directory"], capture_output=True, text=True)
    return c["file"], done.returncode, done.stderr
failed = 0
with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as pool:
    for file, rc, err in pool.map(check, commands):
        firsts = {}
        for line in err.splitlines():
            m = re.match(r"(/[^:]+):\d+:\d+: (error|warning): ", line)
            if m and m.group(1) not in firsts:
                firsts[m.group(1)] = line
        if rc or firsts:
            failed += 1
            print(f"{os.path.basename(file)}:"); [print("  " + l) for l in firsts.values()]
print(f"check_unity: {len(commands)} batches, {failed} with errors or warnings")
sys.exit(1 if failed else 0)
EOF
