"""``authorguard privacy``: what a release costs, without releasing anything."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.table import Table

from authorguard.cli.common import handle_errors, print_json, progress, stdout
from authorguard.exceptions import InputError
from authorguard.methods import syntf_defaults as defaults

app = typer.Typer(help="Privacy accounting for the methods, without releasing anything.", no_args_is_help=True)

MEANINGS = {
    "standard_epsilon": "epsilon * n: sequential composition of n epsilon-DP word draws",
    "improved_epsilon": "(epsilon + ln eta) * n: the paper's Corollary 3.5 (rating in [0, 1])",
    "tight_epsilon": "l * n: the exact worst case of this mechanism; what one document really costs",
    "loss_per_word": "l = max_w ln(max_v pi[v,w] / min_v pi[v,w]), exact over the whole vocabulary",
}


def print_report(report) -> None:
    table = Table(title="SynTF privacy loss of one released document", show_lines=False)
    table.add_column("bound")
    table.add_column("value", justify="right")
    table.add_column("meaning")
    values = report.to_dict()
    for key, meaning in MEANINGS.items():
        value = values[key]
        table.add_row(key, "n/a" if value is None else f"{value:,.2f}", meaning)
    stdout.print(table)
    details = {k: v for k, v in values.items() if k not in MEANINGS and v is not None}
    stdout.print(", ".join(f"{k}={v}" for k, v in details.items()), highlight=False)


def _mechanism(embeddings: str, epsilon: float, bigram_weight: float):
    from authorguard.embeddings.loading import load_word_vectors
    from authorguard.privacy.mechanism import ExponentialMechanism

    vectors = load_word_vectors(embeddings)
    if len(vectors) == 0:
        raise InputError(f"{embeddings}: no word vectors")
    return ExponentialMechanism.from_words(list(vectors.words), vectors, epsilon, bigram_weight), vectors.name


@handle_errors
def syntf(
    epsilon: Annotated[float, typer.Option(help="Privacy parameter per sampled word, > 0.")],
    n_words: Annotated[int, typer.Option(help="Words sampled per document, >= 1.")],
    vocab_size: Annotated[int | None, typer.Option(help="|V|, for the standard and improved bounds only.")] = None,
    embeddings: Annotated[
        str | None,
        typer.Option(
            help="GloVe text file (or embeddings name): V is every word in it, morphology orth; gives the tight bound."
        ),
    ] = None,
    bigram_weight: Annotated[
        float, typer.Option(help="Weight s of the letter-bigram penalty, in [0, 1] (the paper's s / 2).")
    ] = defaults.BIGRAM_WEIGHT,
    json_output: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Standard, improved and (with --embeddings) tight privacy loss of one SynTF document."""
    from authorguard.privacy.accounting import SynTFPrivacyReport

    if (vocab_size is None) == (embeddings is None):
        raise InputError("give exactly one of --vocab-size and --embeddings")
    if embeddings is None:
        assert vocab_size is not None  # exactly one of the two is given (checked above)
        report = SynTFPrivacyReport.compute(epsilon, n_words, vocab_size)
    else:
        SynTFPrivacyReport.compute(epsilon, n_words, 1)  # validate before loading anything
        with progress() as bars:
            bars.add_task("computing the exact loss per word", total=None)
            mechanism, name = _mechanism(embeddings, epsilon, bigram_weight)
            loss = mechanism.loss_per_word()
        report = SynTFPrivacyReport.compute(
            epsilon,
            n_words,
            mechanism.vocabulary_size,
            loss,
            bigram_weight=bigram_weight,
            embeddings=name,
            morphology="orth",
            vocabulary_source="public",
        )
    if json_output:
        values = report.to_dict()
        print_json({key: values[key] for key in MEANINGS})
    else:
        print_report(report)


@handle_errors
def epsilon_for_loss(
    target_loss: Annotated[float, typer.Option(help="Target tight loss per word l, > 0 (the paper's optimum: 25.4).")],
    embeddings: Annotated[str, typer.Option(help="GloVe text file or embeddings name; V is every word in it.")],
    bigram_weight: Annotated[
        float, typer.Option(help="Weight s of the letter-bigram penalty, in [0, 1] (the paper's s / 2).")
    ] = defaults.BIGRAM_WEIGHT,
    json_output: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """The epsilon at which the exact loss per word equals --target-loss (compare methods at equal l)."""
    from authorguard.privacy.calibration import epsilon_for_loss as solve

    with progress() as bars:
        bars.add_task("searching epsilon", total=None)
        mechanism, name = _mechanism(embeddings, 1.0, bigram_weight)
        epsilon = solve(mechanism, target_loss)
    result = {
        "epsilon": epsilon,
        "target_loss": target_loss,
        "vocabulary_size": mechanism.vocabulary_size,
        "embeddings": name,
    }
    if json_output:
        print_json(result)
    else:
        stdout.print(
            f"epsilon = {epsilon:.4f} gives l = {target_loss} per word (L = {mechanism.vocabulary_size}, {name})"
        )


@handle_errors
def dp_prompt(
    clip: Annotated[tuple[float, float], typer.Option(help="Logit clip range: LOW HIGH.")],
    max_tokens: Annotated[int, typer.Option(help="Tokens generated per document at most (m).")],
    temperature: Annotated[float | None, typer.Option(help="Sampling temperature T (or give --epsilon).")] = None,
    epsilon: Annotated[
        float | None, typer.Option(help="Instead of --temperature: the document-level ε to spend.")
    ] = None,
    relative: Annotated[bool, typer.Option(help="Clip the logits less the step's largest (HIGH <= 0).")] = False,
    json_output: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """DP-Prompt's cost of one document: ε_token = 2 (HIGH − LOW) / T per generated token, m · ε_token a document
    (or the temperature that makes it --epsilon)."""
    from authorguard.privacy.clipped_sampling import DPPromptPrivacyReport, temperature_for

    if (temperature is None) == (epsilon is None):
        raise InputError("give exactly one of --temperature and --epsilon")
    if temperature is None:
        assert epsilon is not None  # exactly one of the two is given (checked above)
        temperature = temperature_for(epsilon, clip[0], clip[1], max_tokens)
    report = DPPromptPrivacyReport.compute(clip[0], clip[1], temperature, max_tokens, relative=relative).to_dict()
    if json_output:
        print_json(report)
    else:
        stdout.print(
            f"document epsilon {report['document_epsilon']:,.2f} = {max_tokens} tokens x token epsilon "
            f"{report['token_epsilon']:.4f} ({'relative ' if relative else ''}clip [{clip[0]}, {clip[1]}], T "
            f"{temperature:.4g})",
            highlight=False,
        )


app.command("syntf")(syntf)
app.command("epsilon-for-loss")(epsilon_for_loss)
app.command("dp-prompt")(dp_prompt)
