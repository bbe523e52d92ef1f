#!/bin/bash
# Every IBVERBS_* (or RDMACM_*) symbol that a Debian package's ELF files import must be
# exported by softverbs with the same version node, or the dynamic loader
# refuses to load them on softverbs (as libmlx5 once did for
# verbs_allow_disassociate_destroy@IBVERBS_PRIVATE_34). Checked twice: from the
# symbol tables (readelf), and as the loader resolves them (ldd -r, with softverbs first).
# usage: abi_check.sh SOFTVERBS_LIBRARY DEBIAN_PACKAGE [NODE_PREFIX]
#   NODE_PREFIX  IBVERBS (default: libibverbs.so.1) or RDMACM (librdmacm.so.1)
# Exit 0: all imports resolved; 1: some missing (listed); 77: package not installed.
set -uo pipefail
lib=$1 pkg=$2 node=${3:-IBVERBS}
[[ $node =~ ^[A-Z]+$ ]] || { echo "FAIL: node prefix '$node' must be upper-case letters (IBVERBS, RDMACM)"; exit 2; }
command -v readelf >/dev/null || { echo "SKIP: readelf (binutils) not installed"; exit 77; }
status=$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null)
if [[ $status != installed ]]; then
  echo "SKIP: Debian package $pkg is not installed (scripts/install-deps.sh does not install it)"
  exit 77
fi
[[ -f $lib ]] || { echo "FAIL: softverbs library $lib not built"; exit 1; }
libdir=$(cd "$(dirname "$lib")" && pwd)

# Defined, exported symbols of softverbs as name@NODE (readelf prints name@@NODE).
exports=$(readelf --dyn-syms -W "$lib" | awk '$7 != "UND" && $8 ~ /@@?'"$node"'_/ {sub(/@@/, "@", $8); print $8}' | sort -u)
[[ -n $exports ]] || { echo "FAIL: $lib exports no ${node}_* symbol"; exit 1; }
# Variables: an importer that reads data (OBJECT) must find data, not code.
objects=$(readelf --dyn-syms -W "$lib" |
  awk '$7 != "UND" && $4 == "OBJECT" && $8 ~ /@@?'"$node"'_/ {sub(/@@/, "@", $8); print $8}' | sort -u)

checked=0 missing=0
while read -r file; do
  [[ -f $file && ! -L $file ]] || continue
  head -c4 "$file" 2>/dev/null | grep -q $'\x7fELF' || continue
  imports=$(readelf --dyn-syms -W "$file" 2>/dev/null |
    awk '$7 == "UND" && $8 ~ /@'"$node"'_/ {print $8}' | sort -u)
  [[ -n $imports ]] || continue
  checked=$((checked + 1))
  absent=$(comm -23 <(echo "$imports") <(echo "$exports"))
  data=$(readelf --dyn-syms -W "$file" | awk '$7 == "UND" && $4 == "OBJECT" && $8 ~ /@'"$node"'_/ {print $8}' | sort -u)
  if [[ -n $data ]]; then
    notdata=$(comm -12 <(echo "$data") <(echo "$exports") | comm -23 - <(echo "$objects") | sed 's/$/ (a variable there, not one in softverbs)/')
    absent=$(printf '%s\n%s' "$absent" "$notdata" | grep .)
  fi
  # And as the dynamic loader sees it (with the libraries it pulls in, e.g. perftest's libmlx5).
  unresolved=$(LD_LIBRARY_PATH=$libdir ldd -r "$file" 2>&1 | grep -E "undefined symbol: .*${node}_|${node}_.* not found" |
    sed 's/^[[:space:]]*/loader: /')
  absent=$(printf '%s\n%s' "$absent" "$unresolved" | grep .)
  n=$(echo "$imports" | wc -l)
  if [[ -n $absent ]]; then
    missing=$((missing + $(echo "$absent" | wc -l)))
    echo "FAIL: $file imports $n $node symbols; softverbs lacks:"
    echo "$absent" | sed 's/^/    /'
  else
    echo "ok: $file ($n $node symbols)"
  fi
done < <(dpkg -L "$pkg")

if ((checked == 0)); then
  echo "FAIL: no ELF file of $pkg imports a $node symbol: nothing was checked (wrong package name?)"
  exit 1
fi
if ((missing > 0)); then
  echo "FAIL: $missing symbol(s) of $pkg missing from $lib"
  exit 1
fi
echo "PASS: $checked ELF file(s) of $pkg resolve every $node import against softverbs"
