# tests/pairs/cover.awk - awk -f cover.awk MODEL.pict MODEL.pairs: whether
# the table is a covering array of strength 2 of its model, worked out
# here apart from the generator: every row valid under the model's
# constraints, and every pair of values of two factors that some valid
# row of the whole product holds present in some row of the table.
# Prints "ok ROWS rows, PAIRS pairs, of a product of CELLS cells" or what
# is wrong, one line a fault. Reads the model lines make-pairs.sh's
# models use: "NAME: V1, V2, ..." and
# 'IF [F] = "V" THEN [G] IN {"W1", "W2", ...};', whose IF may hold several
# conditions joined by AND, each [F] = "V" or [F] IN {"V1", ...}.
FNR == NR {
    line = $0
    sub(/#.*/, "", line)
    if (line ~ /^[A-Za-z_0-9-]+:/) {
        name = line; sub(/:.*/, "", name)
        vals = line; sub(/^[^:]*:/, "", vals); gsub(/[ \t]/, "", vals)
        nf++; fname[nf] = name; at[name] = nf
        nv[nf] = split(vals, tmp, ",")
        for (i = 1; i <= nv[nf]; i++) val[nf, i] = tmp[i]
    } else if (line ~ /^IF /) {
        gsub(/[][{}";,]/, " ", line)
        n = split(line, t, " ")
        # conditions: factor, then = or IN, then values up to AND or THEN
        nc++; ncond[nc] = 0
        for (i = 2; i <= n && t[i] != "THEN"; ) {
            ncond[nc]++; m = ncond[nc]; cf[nc, m] = t[i]
            for (i += 2; i <= n && t[i] != "AND" && t[i] != "THEN"; i++)
                cin[nc, m, t[i]] = 1
            if (t[i] == "AND") i++
        }
        cg[nc] = t[i + 1]
        for (i += 3; i <= n; i++) allow[nc, t[i]] = 1
    }
    next
}
/^#/ { next }
NF {
    rows++
    if (NF != nf) { print "row " rows " has " NF " values, the model " nf " factors"; bad++; next }
    for (i = 1; i <= nf; i++) r[i] = $i
    if (!valid()) { print "row " rows " (" $0 ") breaks a constraint"; bad++ }
    for (i = 1; i <= nf; i++) for (j = i + 1; j <= nf; j++) have[i, r[i], j, r[j]] = 1
}
function valid(   c, m, holds) {
    for (c = 1; c <= nc; c++) {
        holds = 1
        for (m = 1; m <= ncond[c]; m++)
            if (!((c, m, r[at[cf[c, m]]]) in cin)) holds = 0
        if (holds && !((c, r[at[cg[c]]]) in allow)) return 0
    }
    return 1
}
END {
    # every cell of the product, as an odometer over the factors
    for (i = 1; i <= nf; i++) k[i] = 1
    cells = 0
    while (1) {
        for (i = 1; i <= nf; i++) r[i] = val[i, k[i]]
        if (valid()) {
            cells++
            for (i = 1; i <= nf; i++) for (j = i + 1; j <= nf; j++) need[i, r[i], j, r[j]] = 1
        }
        for (i = nf; i >= 1 && k[i] == nv[i]; i--) k[i] = 1
        if (i < 1) break
        k[i]++
    }
    pairs = 0
    for (p in need) {
        pairs++
        if (!(p in have)) {
            split(p, q, SUBSEP)
            print "no row holds " fname[q[1]] " " q[2] " with " fname[q[3]] " " q[4]
            bad++
        }
    }
    if (!bad) print "ok " rows " rows, " pairs " pairs, of a product of " cells " cells"
}
