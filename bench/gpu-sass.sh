#!/bin/sh
# bench/gpu-sass.sh - the machine code NVIDIA's OpenCL makes of histo's
# kernels, and the forms of its atomic instructions, kernel by kernel:
#   sh bench/gpu-sass.sh OUTDIR   (PLATFORM/DEVICE as for gpu-check.sh;
#   STRATEGIES, default every one; ARCH, default sm_90; ENV: VAR=value
#   words every run gets, such as HISTO_CL_OPTIONS=-DNAME=1 for a
#   kernel variant)
#
# Each strategy's program is built once, on a small input, through the
# program cache (HISTO_PROGRAM_CACHE, src/progcache.c), whose entries
# hold what clGetProgramInfo(CL_PROGRAM_BINARIES) gives: PTX on NVIDIA.
# ptxas -arch=ARCH assembles it (with the -cl-nv-maxrregcount the run
# used), cuobjdump -sass disassembles it; the CUDA toolkit's, from PATH
# or the newest /usr/local/cuda*/bin. Per kernel, the atomic instructions
# counted by form (static counts: how the code was compiled, not how
# often it runs):
#   ATOMS.POPC.INC  a local increment by one that merges a warp's
#                   increments of one word
#   ATOMS.*         other local (shared memory) atomics
#   ATOMG.*, ATOM.* global atomics whose result is used (or kept)
#   RED.*, REDG.*   global atomics in the no-return form
# and the PTX's atom.* and red.* of each entry, what the compiler asked
# ptxas for. Writes OUTDIR/STRATEGY.N.{ptx,cubin,sass}, ptxas.log,
# atomics.txt (every form of every kernel) and summary.txt (the table
# printed).
set -u
cd "$(dirname "$0")/.." || exit 1
out=$1
mkdir -p "$out" || exit 1
platform=${PLATFORM:-NVIDIA CUDA}
device=${DEVICE:-GPU}
arch=${ARCH:-sm_90}
make -j8 all >"$out/build.log" 2>&1 || { echo "gpu-sass: the build failed: $out/build.log"; exit 1; }
tool() { # NAME: the CUDA tool's path, or nothing
    command -v "$1" 2>/dev/null && return
    for d in $(ls -d /usr/local/cuda*/bin 2>/dev/null | sort -rV); do
        [ -x "$d/$1" ] && { echo "$d/$1"; return; }
    done
}
ptxas=$(tool ptxas)
cuobjdump=$(tool cuobjdump)
if [ -z "$ptxas" ] || [ -z "$cuobjdump" ]; then
    echo "gpu-sass: ptxas or cuobjdump not found (PATH, /usr/local/cuda*/bin)"
    exit 1
fi
echo "gpu-sass: $($ptxas --version | tail -n 1), -arch=$arch" | tee "$out/ptxas.log"
# a small input: every strategy builds its whole program for any input
in=$out/input.bin
build/histo-gen -o "$in" --seed 1 >/dev/null || exit 1

# entry ENTRY OUT: a program cache entry's binary (the layout of
# src/progcache.c: a 22-byte line, the key's length in 8 bytes, the key,
# the binary's length, its CRC, the binary; lengths in the host's order)
entry() {
    klen=$(od -An -tu8 -j 22 -N 8 "$1" | tr -d ' ')
    blen=$(od -An -tu8 -j $((22 + 8 + klen)) -N 8 "$1" | tr -d ' ')
    tail -c +$((22 + 24 + klen + 1)) "$1" | head -c "$blen" | tr -d '\000' >"$2"
}

# assemble PTX CUBIN OPTIONS: ptxas, and where it refuses the PTX's
# .version (a driver newer than the toolkit), the same code under each
# older version until one is taken
assemble() {
    # shellcheck disable=SC2086 # options are words
    "$ptxas" -arch="$arch" $3 -v "$1" -o "$2" >>"$out/ptxas.log" 2>&1 && return 0
    for v in 9.0 8.8 8.7 8.6 8.5 8.4 8.3 8.2 8.1 8.0 7.8 7.7; do
        sed "s/^\.version .*/.version $v/" "$1" >"$1.v"
        # shellcheck disable=SC2086
        if "$ptxas" -arch="$arch" $3 -v "$1.v" -o "$2" >>"$out/ptxas.log" 2>&1; then
            echo "(assembled as .version $v)" >>"$out/ptxas.log"
            rm -f "$1.v"
            return 0
        fi
    done
    rm -f "$1.v"
    return 1
}

: >"$out/atomics.txt"
seen=""
for s in ${STRATEGIES:-eye fused replicated global cpu}; do
    cache=$out/cache.$s
    rm -rf "$cache"
    # shellcheck disable=SC2086 # ENV is a list of words
    env ${ENV:-} HISTO_PROGRAM_CACHE="$cache" ./histo --platform "$platform" \
        --device "$device" --strategy "$s" --no-tune-cache -i "$in" --no-bmp \
        --timing "$out/$s.out" -- 1 >"$out/$s.log" 2>&1 \
        || { echo "gpu-sass: $s: $(tail -n 1 "$out/$s.log")"; continue; }
    i=0
    for e in "$cache"/*.clbin; do
        [ -f "$e" ] || continue
        i=$((i + 1))
        base=$out/$s.$i
        entry "$e" "$base.ptx"
        # a program met before (the loop probe's, built for every strategy)
        sum=$(cksum <"$base.ptx" | cut -d" " -f1)
        case " $seen " in *" $sum "*) rm -f "$base.ptx"; continue ;; esac
        seen="$seen $sum"
        if ! grep -q '^\.entry\|^\.visible \.entry' "$base.ptx"; then
            echo "gpu-sass: $s: entry $i is not PTX" >&2
            continue
        fi
        # the register cap the run built with, from the entry's key
        regs=$(grep -a -o -- '-cl-nv-maxrregcount=[0-9]*' "$e" | head -n 1 | cut -d= -f2)
        echo "== $s.$i ($(grep -o '\.entry [A-Za-z0-9_]*' "$base.ptx" | cut -d' ' -f2 | tr '\n' ' '))" \
            >>"$out/ptxas.log"
        assemble "$base.ptx" "$base.cubin" "${regs:+--maxrregcount $regs}" \
            || { echo "gpu-sass: $s.$i: ptxas failed ($out/ptxas.log)"; continue; }
        "$cuobjdump" -sass "$base.cubin" >"$base.sass" \
            || { echo "gpu-sass: $s.$i: cuobjdump failed"; continue; }
        # PTX: each entry's atom.* and red.* (every state space and type)
        awk -v s="$s" '
            /\.entry [A-Za-z0-9_]+/ { match($0, /\.entry [A-Za-z0-9_]+/)
                                      fn = substr($0, RSTART + 7, RLENGTH - 7) }
            /^[ \t]*(\.visible |\.weak )?\.func/ { fn = "(a .func)" }
            fn != "" && $1 ~ /^(@!?%p[0-9]+)$/ { $1 = ""; sub(/^ +/, "") }
            fn != "" && $1 ~ /^(atom|red)\./ { n[fn " ptx " $1]++ }
            END { for (k in n) print s, k, n[k] }' "$base.ptx" >>"$out/atomics.txt"
        # SASS: each function's atomic instructions by mnemonic
        awk -v s="$s" '
            /Function :/ { fn = $3 }
            /^[ \t]*\/\*[0-9a-f]+\*\// && fn != "" {
                line = $0
                sub(/^[ \t]*\/\*[0-9a-f]+\*\/[ \t]*/, "", line)
                sub(/^@!?U?P[0-9T]+[ \t]+/, "", line)
                split(line, t, /[ \t;]+/)
                if (t[1] ~ /^(ATOMS|ATOMG|ATOM|RED|REDG)(\.|$)/) n[fn " sass " t[1]]++
            }
            END { for (k in n) print s, k, n[k] }' "$base.sass" >>"$out/atomics.txt"
    done
done
sort -o "$out/atomics.txt" "$out/atomics.txt"
# the table: a kernel a line (the first program that has it per strategy)
awk '
    $3 == "sass" {
        k = $1 " " $2
        if (!(k in seen)) { seen[k] = 1; order[++nk] = k }
        if ($4 ~ /^ATOMS\.POPC\.INC/) popc[k] += $5
        else if ($4 ~ /^ATOMS/) atoms[k] += $5
        else if ($4 ~ /^REDG?(\.|$)/) red[k] += $5
        else glob[k] += $5
    }
    END {
        printf "%-11s %-22s %15s %12s %16s %12s\n", "strategy", "kernel",
               "ATOMS.POPC.INC", "ATOMS.other", "ATOMG/ATOM (ret)", "RED (no-ret)"
        for (i = 1; i <= nk; i++) {
            k = order[i]; split(k, f, " ")
            printf "%-11s %-22s %15d %12d %16d %12d\n", f[1], f[2], popc[k],
                   atoms[k], glob[k], red[k]
        }
    }' "$out/atomics.txt" | tee "$out/summary.txt"
echo "(every form: $out/atomics.txt; static counts of instructions in the code)"
