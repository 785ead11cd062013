#!/usr/bin/env python3
# Regenerates writeback/names/fold_table.h:
#   python3 writeback/names/gen_fold.py > writeback/names/fold_table.h
# The canonical decompositions and simple case folds of the Latin, Greek and
# Cyrillic blocks (see fold.c for why this coverage).
# The Latin-1 Supplement from 0xA0, not 0xC0: U+00B5 MICRO SIGN folds to
# U+03BC GREEK SMALL LETTER MU, so "\u00b5" and "\u03bc" are one name on a
# case-insensitive checkout.
import unicodedata as U
ranges=[(0xA0,0x24F),(0x370,0x3FF),(0x400,0x52F),(0x1E00,0x1FFF),(0x2126,0x2126),(0x212A,0x212B)]
cps=[c for a,b in ranges for c in range(a,b+1)]
dec=[]
for c in cps:
    d=U.normalize('NFD',chr(c))
    if d!=chr(c):
        seq=[ord(x) for x in d]
        assert len(seq)<=4,(hex(c),seq)
        dec.append((c,seq))
fold=[]
for c in cps+list(range(0x300,0x370)):
    ch=chr(c)
    f=ch.casefold()
    if len(f)!=1: f=ch.lower()
    if len(f)!=1: continue
    if f!=ch:
        # fold must map into a code point that is itself NFD-stable or decomposes; we apply fold after NFD
        fold.append((c,ord(f)))
# marks with non-230 ccc in 0300-036F and others used in decomps
marks=set()
for c,seq in dec:
    for x in seq[1:]: marks.add(x)
ccc=[(m,U.combining(chr(m))) for m in sorted(set(list(range(0x300,0x370))+list(marks))) if U.combining(chr(m))]
print("/* Generated from Unicode %s (Python unicodedata) by writeback/names/gen_fold.py; do not edit. */"%U.unidata_version)
print("/* clang-format off */")
print("static const struct fold_decomp fold_decomps[] = {")
for c,seq in dec:
    s=seq+[0]*(4-len(seq))
    print("    {0x%04x, {0x%04x, 0x%04x, 0x%04x, 0x%04x}},"%(c,*s))
print("};")
print("static const struct fold_pair fold_cases[] = {")
line=[]
for c,f in sorted(fold):
    line.append("{0x%04x, 0x%04x}"%(c,f))
    if len(line)==4: print("    "+", ".join(line)+","); line=[]
if line: print("    "+", ".join(line)+",")
print("};")
print("static const struct fold_pair fold_ccc[] = {")
line=[]
for m,k in ccc:
    if k==230: continue
    line.append("{0x%04x, %d}"%(m,k))
    if len(line)==6: print("    "+", ".join(line)+","); line=[]
if line: print("    "+", ".join(line)+",")
print("};")
import sys
print(len(dec),len(fold),len(ccc),file=sys.stderr)
# sanity: any decomposition base outside what we fold that needs folding?
