# Helpers for the dependency guards (sourced by check_build_deps.sh and test_deb.sh).
# They answer one question from dpkg's database, offline: is the Debian package that owns a
# file reachable from a list of packages through Depends/Pre-Depends, or part of every Debian
# system (Essential: yes, Priority: required)? A fresh Debian 12 machine has nothing else.

# closure SEED...: prints the base system plus SEED and everything they depend on, one per line.
# Alternatives ("a | b") count the first one and any that is installed; virtual packages count
# their installed providers.
closure() {
    dpkg-query -W -f='${Package}\t${db:Status-Abbrev}\t${Essential}\t${Priority}\t${Provides}\t${Pre-Depends}\t${Depends}\n' |
        awk -F'\t' -v seeds="$*" '
        function strip(s) { sub(/\(.*\)/, "", s); sub(/:.*/, "", s); gsub(/[ \t]/, "", s); return s }
        function add(p) { if (!(p in seen)) { seen[p] = 1; queue[n++] = p } }
        {
            if ($2 !~ /^ii/) next
            installed[$1] = 1
            deps[$1] = $6 ", " $7
            np = split($5, prov, ",")
            for (i = 1; i <= np; i++) { v = strip(prov[i]); if (v != "") providers[v] = providers[v] " " $1 }
            if ($3 == "yes" || $4 == "required") base[$1] = 1
        }
        END {
            n = 0
            for (p in base) add(p)
            ns = split(seeds, s, " ")
            for (i = 1; i <= ns; i++) add(s[i])
            for (q = 0; q < n; q++) {
                p = queue[q]
                if (p in providers) { nv = split(providers[p], pv, " "); for (j = 1; j <= nv; j++) add(pv[j]) }
                if (!(p in deps)) continue
                ng = split(deps[p], groups, ",")
                for (g = 1; g <= ng; g++) {
                    na = split(groups[g], alts, "|")
                    for (a = 1; a <= na; a++) {
                        d = strip(alts[a])
                        if (d == "") continue
                        if (a == 1 || (d in installed) || (d in providers)) add(d)
                    }
                }
            }
            for (p in seen) print p
        }' | sort -u
}

# owners FILE...: prints "FILE<TAB>PACKAGE[, PACKAGE]" for each file dpkg knows, trying the path,
# the path with symlinks resolved, and both with /usr merged or not (Debian 12 ships /lib paths).
owners() {
    local f c
    declare -A cand_of=()
    local all=()
    for f in "$@"; do
        local cands=("$f")
        local r
        r=$(readlink -f "$f" 2>/dev/null) && [ -n "$r" ] && cands+=("$r")
        local more=()
        for c in "${cands[@]}"; do
            case "$c" in
            /usr/lib/* | /usr/bin/* | /usr/sbin/*) more+=("${c#/usr}") ;;
            /lib/* | /lib64/* | /bin/* | /sbin/*) more+=("/usr$c") ;;
            esac
        done
        cands+=("${more[@]}")
        cand_of[$f]="${cands[*]}"
        all+=("${cands[@]}")
    done
    declare -A owner=()
    local line pkgs path
    while IFS= read -r line; do
        case "$line" in diversion*) continue ;; esac
        pkgs=${line%%: /*}
        path=/${line#*: /}
        owner[$path]=$(echo "$pkgs" | sed 's/:[a-z0-9]*//g')
    done < <(printf '%s\n' "${all[@]}" | sort -u | xargs -r dpkg -S 2>/dev/null || true)
    for f in "$@"; do
        for c in ${cand_of[$f]}; do
            if [ -n "${owner[$c]:-}" ]; then printf '%s\t%s\n' "$f" "${owner[$c]}"; break; fi
        done
    done
}

# check_owned LABEL CLOSURE_FILE USES_FILE: USES_FILE has lines "FILE<TAB>WHY". Prints one line
# per file whose owning package is outside the closure, naming the package; returns 1 if any.
# OWNERS_FILE, if set, holds owners' answer for those files already.
check_owned() {
    local label=$1 closure_file=$2 uses_file=$3 bad=0 f why pkgs p ok
    declare -A why_of=()
    while IFS=$'\t' read -r f why; do why_of[$f]=$why; done < "$uses_file"
    declare -A owned=()
    while IFS=$'\t' read -r f pkgs; do
        owned[$f]=1
        echo "$pkgs" >> "${USED_PACKAGES_FILE:-/dev/null}"
        ok=0
        for p in ${pkgs//,/ }; do grep -qx "$p" "$closure_file" && ok=1; done
        if [ $ok -eq 0 ]; then
            echo "MISSING: package ${pkgs} ($f, ${why_of[$f]}) is not in $label nor pulled in by it"
            bad=1
        fi
    done < <(if [ -n "${OWNERS_FILE:-}" ]; then cat "$OWNERS_FILE"; else owners $(cut -f1 "$uses_file" | sort -u); fi)
    for f in "${!why_of[@]}"; do
        [ -n "${owned[$f]:-}" ] || echo "note: $f (${why_of[$f]}) belongs to no Debian package"
    done
    return $bad
}
