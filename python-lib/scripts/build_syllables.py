#!/usr/bin/env python3
"""Build oodle_eval/v1/data/syllables.tsv from the CMU Pronouncing Dictionary.

Output: one ``word<TAB>syllables`` line per word, sorted, after a few ``#`` comment lines that
name the source. ``syllables`` is the number of vowel phonemes of the word's first
pronunciation: in the stressed CMUdict format (``HELLO  HH AH0 L OW1``) the phonemes that carry a
stress digit; in the unstressed CMU Sphinx format (``hello HH AH L OW``) the ARPAbet vowels
AA AE AH AO AW AY EH ER EY IH IY OW OY UH UW, which are exactly the phonemes that carry a stress
digit in the stressed format.

Source, first that exists (or ``--source FILE``):

1. ``/usr/share/pocketsphinx/model/en-us/cmudict-en-us.dict`` -- Debian package
   ``pocketsphinx-en-us`` (CMUdict 0.7b lineage, CMU Sphinx format, BSD-2-Clause). Debian 12
   (bookworm) no longer ships a package named ``cmudict``, so this is the CMUdict copy that
   ``apt-get install pocketsphinx-en-us`` brings.
2. ``/usr/share/cmudict/cmudict-0.7b`` / ``/usr/share/dict/cmudict`` -- the upstream file, if a
   ``cmudict`` package provides it.

Kept: words made of ``a-z``, apostrophes and hyphens (entries with digits or dots such as
``c1``/``a.`` are spelling artefacts). Hyphens are dropped (``drive-thru`` -> ``drivethru``),
as textstat's punctuation removal does to a hyphenated word, unless that spelling is already an
entry. Alternate pronunciations (``word(2)``) are skipped: the first one wins.

The full table is about 1.3 MB, under the 1.5 MB budget, so every word is kept. Pass
``--only-differing`` to keep only the words whose count differs from the rule-based fallback of
``oodle_eval.v1.checks.readability`` (the lookup then gives the same counts with a table ~10x
smaller, but any change to the fallback rule then needs a rebuild).

Usage: ``python3 scripts/build_syllables.py [--source FILE] [--out FILE] [--only-differing]``
"""

from __future__ import annotations

import argparse
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
LIB_ROOT = os.path.dirname(HERE)
DEFAULT_OUT = os.path.join(LIB_ROOT, "oodle_eval", "v1", "data", "syllables.tsv")
CANDIDATES = (
    "/usr/share/pocketsphinx/model/en-us/cmudict-en-us.dict",
    "/usr/share/cmudict/cmudict-0.7b",
    "/usr/share/cmudict/cmudict.dict",
    "/usr/share/dict/cmudict",
)
ARPABET_VOWELS = frozenset("AA AE AH AO AW AY EH ER EY IH IY OW OY UH UW".split())
_WORD_OK = re.compile(r"^[a-z'][a-z'\-]*$")
_ALT = re.compile(r"\(\d+\)$")


def count_vowels(phonemes: list[str]) -> int:
    """Vowel phonemes of one pronunciation: those with a stress digit, or ARPAbet vowels."""
    return sum(1 for p in phonemes if p[-1:].isdigit() or p.upper() in ARPABET_VOWELS)


def parse(path: str) -> dict[str, int]:
    """word -> syllables for the first pronunciation of each word in a CMUdict-format file."""
    table: dict[str, int] = {}
    with open(path, encoding="latin-1") as fh:
        for line in fh:
            if not line.strip() or line.startswith(";;;") or line.startswith("#"):
                continue
            parts = line.split()
            word = parts[0].lower()
            if _ALT.search(word):
                continue
            if not _WORD_OK.match(word):
                continue
            table.setdefault(word, count_vowels(parts[1:]))
    joined: dict[str, int] = {}
    for word, n in table.items():
        if "-" in word:
            plain = word.replace("-", "")
            if plain and plain not in table and plain not in joined:
                joined[plain] = n
    out = {w: n for w, n in table.items() if "-" not in w}
    out.update(joined)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", help="a CMUdict-format file (default: first of %s)" % ", ".join(CANDIDATES))
    parser.add_argument("--out", default=DEFAULT_OUT)
    parser.add_argument("--only-differing", action="store_true", help="keep only words the fallback rule gets wrong")
    args = parser.parse_args(argv)

    source = args.source or next((p for p in CANDIDATES if os.path.exists(p)), None)
    if not source or not os.path.exists(source):
        print("no CMUdict file found: apt-get install pocketsphinx-en-us, or pass --source", file=sys.stderr)
        return 2
    table = parse(source)
    if args.only_differing:
        sys.path.insert(0, LIB_ROOT)
        from oodle_eval.v1.checks.readability import estimate_syllables

        table = {w: n for w, n in table.items() if estimate_syllables(w) != n}

    tmp = args.out + ".tmp"
    with open(tmp, "w", encoding="utf-8", newline="\n") as fh:
        fh.write("# syllables.tsv: word<TAB>syllables (vowel phonemes of the first pronunciation)\n")
        fh.write("# from the CMU Pronouncing Dictionary (BSD-2-Clause; see LICENSES.md), file %s\n" % os.path.basename(source))
        fh.write("# built by scripts/build_syllables.py%s\n" % (" --only-differing" if args.only_differing else ""))
        for word in sorted(table):
            fh.write(f"{word}\t{table[word]}\n")
    os.replace(tmp, args.out)
    print(f"{args.out}: {len(table)} words from {source} ({os.path.getsize(args.out)} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
