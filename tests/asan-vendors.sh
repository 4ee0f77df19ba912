# tests/asan-vendors.sh - sourced by tests/run.sh and tests/lib.sh. Under
# the sanitizers (HISTO_BUILD other than build: make test-asan) every
# histo run loads each library the ICD loader lists, and Mesa's (rusticl,
# Clover: registered in /etc/OpenCL/vendors by Debian's mesa-opencl-icd)
# leak at load, which LeakSanitizer reports as histo's. The suite there
# sees the system's other implementations through a vendors folder of its
# own, exported to every subject; impl.sh still tries each implementation
# alone.
if [ "${HISTO_BUILD:-build}" != build ] && [ -z "${OCL_ICD_VENDORS:-}" ] \
   && [ -d /etc/OpenCL/vendors ]; then
    mkdir -p "$ROOT/asan-vendors"
    for f in /etc/OpenCL/vendors/*.icd; do
        case $(cat "$f") in *Rusticl*|*MesaOpenCL*) continue ;; esac
        cp "$f" "$ROOT/asan-vendors/"
    done
    OCL_ICD_VENDORS=$(cd "$ROOT/asan-vendors" && pwd)
    export OCL_ICD_VENDORS
fi
