#!/bin/sh
# build.sh OUT CC ARGS...: build the libFuzzer harness OUT with CC ARGS,
# or, when CC cannot build a libFuzzer program at all (no clang, no
# runtime), a script that says so and exits 77 (skip).  A harness that
# does not build with a working clang is an error.
out=$1 cc=$2
shift 2
probe=$out.probe
printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n);\nint LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { return d && n == 1; }\n' > "$probe.c"
if $cc -fsanitize=fuzzer,address,undefined -o "$probe" "$probe.c" > /dev/null 2>&1; then
	rm -f "$probe" "$probe.c"
	exec $cc "$@" -o "$out"
fi
rm -f "$probe" "$probe.c"
printf '#!/bin/sh\necho "%s: %s cannot build libFuzzer programs: skipped" >&2\nexit 77\n' "$out" "$cc" > "$out"
chmod +x "$out"
