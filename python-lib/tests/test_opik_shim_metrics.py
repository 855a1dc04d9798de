"""The Opik metrics ported into the stand-in (issue 34), checked against real values: NLTK's own
functions (the reference Opik calls), hand computations (ROUGE, Jensen-Shannon, Spearman) and
NLTK's documented METEOR example with WordNet from Debian's wordnet-base."""

from __future__ import annotations

import math

import pytest

nltk_bleu = pytest.importorskip("nltk.translate.bleu_score", reason="python3-nltk (a curated sandbox package) is not installed")

from opik.evaluation import metrics  # noqa: E402
from opik.exceptions import MetricComputationError  # noqa: E402


def test_sentence_bleu_is_nltks_on_lowercased_whitespace_tokens():
    got = metrics.SentenceBLEU(track=False).score(output="The quick brown fox", reference="The quick green fox jumps over something").value
    want = nltk_bleu.sentence_bleu(
        [["the", "quick", "green", "fox", "jumps", "over", "something"]], ["the", "quick", "brown", "fox"],
        weights=(0.25, 0.25, 0.25, 0.25), smoothing_function=nltk_bleu.SmoothingFunction().method1,
    )
    assert got == pytest.approx(want) and 0.05 < got < 0.2
    # One token: the weights are cut to unigrams, so "hello" vs "hello world" is its brevity penalty exp(1 - 2/1).
    assert metrics.SentenceBLEU(track=False).score(output="hello", reference="hello world").value == pytest.approx(math.exp(-1))


def test_corpus_bleu_and_its_errors():
    corpus = metrics.CorpusBLEU(track=False)
    assert corpus.score(output=["a b c d"], reference=[["a b c d"]]).value == pytest.approx(1.0)
    with pytest.raises(MetricComputationError, match="Mismatch"):
        corpus.score(output=["a"], reference=[])
    with pytest.raises(ValueError, match="sum to 1.0"):
        metrics.CorpusBLEU(weights=[0.5, 0.4, 0.05, 0.04])


@pytest.mark.parametrize(
    "rouge_type, output, reference, want",
    [
        ("rouge1", "The brown fox", "The quick brown fox moves quickly", 2 / 3),  # P 3/3, R 3/6
        ("rouge2", "The brown fox", "The quick brown fox moves quickly", 2 * 0.5 * 0.2 / 0.7),  # P 1/2, R 1/5
        ("rougeL", "The brown fox", "The quick brown fox moves quickly", 2 / 3),  # LCS "the brown fox"
        # Summary-level LCS: "john is" (2 of 5 / 5) and "he a band" (3 of 7 / 8): hits 5, P 5/12, R 5/13.
        ("rougeLsum", "John is an accomplished artist.\n He is part of a music band", "John is a talented musician.\n He has a band called as 'The Band'", 2 * (5 / 12) * (5 / 13) / (5 / 12 + 5 / 13)),
    ],
)
def test_rouge_by_hand(rouge_type, output, reference, want):
    assert metrics.ROUGE(rouge_type=rouge_type, track=False).score(output=output, reference=reference).value == pytest.approx(want)


def test_rouge_stemmer_multiple_references_and_bad_input():
    # Stemmed: "the brown dog jump on the log quick" vs "the quick brown fox jump over the lazi dog": 5 of 8, 5 of 9.
    stemmed = metrics.ROUGE(use_stemmer=True, track=False).score(output="The brown dogs jumps on the log quickly", reference="The quick brown fox jumps over the lazy dog")
    assert stemmed.value == pytest.approx(2 * (5 / 8) * (5 / 9) / (5 / 8 + 5 / 9))
    best = metrics.ROUGE(track=False).score(output="The brown fox jumps quickly", reference=["The fox moves", "The quick brown fox jumps over the lazy dog"])
    assert best.value == pytest.approx(2 * (4 / 5) * (4 / 9) / (4 / 5 + 4 / 9))
    with pytest.raises(MetricComputationError, match="Invalid rouge_type"):
        metrics.ROUGE(rouge_type="rouge3")
    with pytest.raises(MetricComputationError, match="punkt"):
        metrics.ROUGE(rouge_type="rougeLsum", split_summaries=True).score(output="a", reference="a")


def test_js_and_kl_divergence_by_hand():
    # P = {token: 1}, Q = {token: .5, other: .5}, M = {token: .75, other: .25} (log base 2).
    jsd = (math.log2(1 / 0.75) + 0.5 * math.log2(0.5 / 0.75) + 0.5 * math.log2(0.5 / 0.25)) / 2
    similarity = metrics.JSDivergence(track=False).score(output="token token", reference="token other")
    assert similarity.value == pytest.approx(1 - jsd)
    assert similarity.metadata == {"divergence": pytest.approx(jsd), "distance": pytest.approx(math.sqrt(jsd)), "base": 2.0}
    assert metrics.JSDistance(track=False).score(output="token token", reference="token other").value == pytest.approx(jsd)
    assert metrics.JSDivergence(track=False).score(output="apple pear", reference="zebra quokka").metadata["divergence"] == pytest.approx(1.0)
    kl = metrics.KLDivergence(smoothing=0.0, track=False).score(output="token token", reference="token other").value
    assert kl == pytest.approx(math.log(1 / 0.5))


def test_spearman_ranking():
    result = metrics.SpearmanRanking(track=False).score(output=["b", "a", "c"], reference=["a", "b", "c"])
    assert (result.value, result.metadata["rho"]) == (pytest.approx(0.75), pytest.approx(0.5))
    with pytest.raises(MetricComputationError, match="same items"):
        metrics.SpearmanRanking().score(output=["a", "x"], reference=["a", "b"])


def test_meteor_with_debian_wordnet_gives_nltks_documented_value():
    hypothesis = "It is a guide to action which ensures that the military always obeys the commands of the party"
    reference = "It is a guide to action that ensures that the military will forever heed Party commands"
    assert round(metrics.METEOR(track=False).score(output=hypothesis, reference=reference).value, 4) == 0.6944


def test_gleu_and_chrf_are_nltks():
    from nltk.translate.chrf_score import sentence_chrf
    from nltk.translate.gleu_score import sentence_gleu

    assert metrics.GLEU(track=False).score(output="the cat sat on the mat", reference="the cat is on the mat").value == pytest.approx(
        sentence_gleu([["the", "cat", "is", "on", "the", "mat"]], ["the", "cat", "sat", "on", "the", "mat"])
    )
    assert metrics.ChrF(track=False).score(output="The quick brown fox", reference="The quick brown fox jumps").value == pytest.approx(
        sentence_chrf(["The quick brown fox jumps"], "The quick brown fox", beta=2.0)
    )


def test_readability_counts_as_oodles_readability_check():
    result = metrics.Readability(track=False).score(output="The cat sat on the mat. It was happy there.")
    # 10 words, 2 sentences, 11 syllables (CMU table: "happy" 2, "there" 1): ease 206.835 - 1.015*5 - 84.6*1.1.
    assert result.metadata["flesch_reading_ease"] == pytest.approx(206.835 - 1.015 * 5 - 84.6 * 1.1)
    assert result.value == 1.0  # ease above 100 is clamped
    assert metrics.Readability(max_grade=-100, enforce_bounds=True, track=False).score(output="The cat sat on the mat.").value == 0.0


def test_metrics_that_need_what_the_sandbox_cannot_have_say_so():
    with pytest.raises(ImportError, match="BERTScore needs a BERT model's weights"):
        metrics.BERTScore()
    try:
        from nltk.sentiment.vader import SentimentIntensityAnalyzer

        SentimentIntensityAnalyzer()
    except LookupError:
        with pytest.raises(ImportError, match="VADERSentiment needs NLTK's 'vader_lexicon'"):
            metrics.VADERSentiment()
        with pytest.raises(ImportError, match="Sentiment needs NLTK's 'vader_lexicon'"):
            metrics.Sentiment()
    else:  # pragma: no cover - a machine with NLTK's data installed
        assert 0 <= metrics.VADERSentiment().score(output="I love it").value <= 1


def test_direction_of_the_divergences():
    assert metrics.JSDistance.higher_is_better is False and metrics.KLDivergence.higher_is_better is False
    assert metrics.JSDivergence.higher_is_better is True
