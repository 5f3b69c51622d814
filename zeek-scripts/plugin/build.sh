#!/bin/sh
# Usage: ./build.sh
# Builds the compiled sensor into build/ (zkg's build_command). Where it cannot be built (no
# compiler, CMake or Zeek development files) it says so and leaves build/ without a plugin, and
# the package's scripts do the per-packet work themselves: the same events at several times the
# cost per packet.
if [ $# -gt 0 ]; then
    sed -n '2,6s/^# //p' "$0" >&2
    exit 2
fi
cd "$(dirname "$0")" || exit 1
if ./configure && make -C build; then
    exit 0
fi
echo "critpath-sensor: the compiled sensor did not build (above); the package's scripts will log the packets" >&2
rm -rf build
mkdir build
