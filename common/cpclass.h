/* Code points that fool a reader of a name, a symlink target or a line of
 * text: what a terminal or an editor shows is not what the bytes say.
 *
 *   control     C0, DEL, C1, U+2028/U+2029 (they end a line or drive a
 *               terminal)
 *   bidi        the bidirectional formatting characters of the Trojan Source
 *               class (CVE-2021-42574): embeddings and overrides U+202A-202E,
 *               isolates U+2066-2069, the marks U+200E, U+200F and U+061C;
 *               they reorder what is shown
 *   invisible   every other format character (general category Cf: soft
 *               hyphen, zero-width space/non-joiner/joiner, word joiner and
 *               the invisible operators, the BOM, interlinear annotations,
 *               tags, ...) and the default-ignorable code points that render
 *               as nothing (combining grapheme joiner, variation selectors,
 *               Hangul fillers, Mongolian free variation selectors, ...)
 *   confusable  what looks like a separator or a dot but is not one: the
 *               solidus and reverse solidus lookalikes (division slash,
 *               fraction slash, fullwidth and big solidus, set minus, ...),
 *               the full stop lookalikes (one and two dot leaders, fullwidth
 *               and small full stop, ellipsis, ...), and spaces other than
 *               U+0020 ("a b" that is not "a b")
 *
 * Kept apart so each refusal says which trick it is. Scripts' own letters
 * (katakana NO, CJK strokes) are not here: they are text, not tricks. */
#ifndef REVRUN_CPCLASS_H
#define REVRUN_CPCLASS_H

#include <stddef.h>
#include <stdint.h>

enum rr_cp_class {
    RR_CP_OK,
    RR_CP_CONTROL,
    RR_CP_BIDI,
    RR_CP_INVISIBLE,
    RR_CP_CONFUSABLE,
};

enum rr_cp_class rr_cp_class(uint32_t cp);

#endif
