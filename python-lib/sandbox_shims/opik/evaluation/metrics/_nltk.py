"""NLTK for the shim's metrics: imported on first use, with errors that name the metric.

NLTK is Debian's python3-nltk, one of the sandbox's curated packages (sandbox/packages.json).
Its corpora (WordNet, the VADER lexicon, punkt) are data NLTK downloads at run time, which the
sandbox cannot do; WordNet 3.0 is read from Debian's wordnet-base instead (``wordnet()``).
"""

from __future__ import annotations

import io
from functools import lru_cache
from typing import Any

#: Debian's WordNet 3.0 database (package wordnet-base), bound read-only into the sandbox.
DEBIAN_WORDNET = "/usr/share/wordnet"

# WordNet 3.0's lexicographer files in order (lexnames(5WN), shipped as a man page by
# wordnet-base); NLTK's reader wants them as the database file "lexnames", which Debian omits.
_LEXNAMES = (
    "adj.all adj.pert adv.all noun.Tops noun.act noun.animal noun.artifact noun.attribute noun.body "
    "noun.cognition noun.communication noun.event noun.feeling noun.food noun.group noun.location "
    "noun.motive noun.object noun.person noun.phenomenon noun.plant noun.possession noun.process "
    "noun.quantity noun.relation noun.shape noun.state noun.substance noun.time verb.body verb.change "
    "verb.cognition verb.communication verb.competition verb.consumption verb.contact verb.creation "
    "verb.emotion verb.motion verb.perception verb.possession verb.social verb.stative verb.weather adj.ppl"
).split()
_CATEGORY = {"noun": 1, "verb": 2, "adj": 3, "adv": 4}


def module(name: str, metric: str) -> Any:
    """``import nltk.<name>``, or ImportError naming ``metric`` and the Debian package.

    ``import nltk`` builds its downloader, which needs a home directory and raises ValueError
    ("Could not find a default download directory") where there is none: the sandbox's
    environment is empty and it has no /etc/passwd. For the import only, HOME is set to /tmp
    (the sandbox's writable directory) when it is unset, then removed again.
    """
    import importlib
    import os

    added_home = "HOME" not in os.environ and os.path.expanduser("~/") == "~/"
    if added_home:
        os.environ["HOME"] = "/tmp"
    try:
        return importlib.import_module(f"nltk.{name}")
    except ImportError as error:
        raise ImportError(
            f"{metric} needs NLTK (Debian's python3-nltk, a curated sandbox package); it is not importable here: {error}"
        ) from error
    finally:
        if added_home:
            os.environ.pop("HOME", None)


@lru_cache(maxsize=1)
def wordnet() -> Any:
    """A WordNet 3.0 reader: NLTK's own corpus when installed, else Debian's wordnet-base.

    Raises:
        LookupError: neither is present (the message says what to install).
    """
    import os

    corpus = module("corpus", "METEOR")
    try:
        corpus.wordnet.ensure_loaded()
        return corpus.wordnet
    except LookupError:
        pass
    if not os.path.isfile(os.path.join(DEBIAN_WORDNET, "index.noun")):
        raise LookupError(
            f"METEOR needs WordNet: neither NLTK's 'wordnet' corpus nor Debian's wordnet-base ({DEBIAN_WORDNET}) is present"
        )
    import warnings

    reader_module = module("corpus.reader.wordnet", "METEOR")

    class DebianWordNet(reader_module.WordNetCorpusReader):
        """NLTK's reader over Debian's files, with the lexnames list supplied (see _LEXNAMES)."""

        def open(self, file: str) -> Any:  # noqa: A003 (NLTK's name)
            if file == "lexnames":
                return io.StringIO("".join(f"{i:02d}\t{n}\t{_CATEGORY[n.split('.')[0]]}\n" for i, n in enumerate(_LEXNAMES)))
            return super().open(file)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "multilingual functions are not available": OMW is not needed
        return DebianWordNet(DEBIAN_WORDNET, None)
