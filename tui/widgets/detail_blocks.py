"""Content builders for the item detail view: pure functions of an `ItemDetail`.

Dataset and model strings are cleaned one-for-one (`clean`) before styling, so the character
ranges from `core.detail` still point at the right characters. Styles use theme variables.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.cells import cell_len
from textual.content import Content

from qa_inspect.core.flags import Flag
from qa_inspect.core.metrics import uses_f1_recall
from qa_inspect.core.query import GoldInfo, GoldMatch, ItemDetail, PredictionInfo, SampleRow, VerdictInfo

from ..present import count, dimension_name, number
from ..text import clean, truncate

MATCH = "bold $success underline"
MUTED = "$foreground-muted"
GOLD_SPAN = "bold $success underline"
PRED_SPAN = "reverse $accent"
STALE = "strike $warning"
LABEL = "bold $primary"
Range = tuple[int, int]


def highlight(text: str, ranges: Sequence[Range], style: str = MATCH, rest: str = "", *, multiline: bool = False) -> Content:
    """`text` cleaned, with `ranges` styled and everything else in `rest`."""
    content = Content(clean(text, multiline=multiline))
    if rest:
        content = content.stylize(rest)
    for a, b in ranges:
        content = content.stylize(style, a, b)
    return content


def _score(value: float | None, label: str, digits: int = 1) -> list[tuple[str, str]]:
    if value is None:
        return []
    shown = f"{value:.0f}" if digits == 0 else f"{100 * value:.{digits}f}"
    return [(f"{label} ", MUTED), (shown, "bold"), ("  ", "")]


def scores(p: PredictionInfo | GoldMatch | SampleRow, refused: int | None = None) -> list[tuple[str, str]]:
    """`EM 0  F1 61.5` or `F1-recall 50.0` or `refused`."""
    if refused:
        return [("refused", "italic $warning"), ("  ", "")]
    return [*_score(p.em, "EM", 0), *_score(p.f1, "F1"), *_score(p.f1_recall, "F1-recall")]


def title(d: ItemDetail, position: int | None, total: int | None) -> Content:
    parts: list[tuple[str, str] | str] = [(clean(d.dataset), LABEL), ("  ", ""), (clean(d.key), "bold")]
    for label, value in (("split", d.split), ("tag", d.tag), ("type", d.answer_type)):
        if value:
            parts += [("  ", ""), (f"{label} ", MUTED), (clean(value), "")]
    if position is not None and total:
        parts += [("  ", ""), (f"{count(position + 1)} of {count(total)} in filter", MUTED)]
    return Content.assemble(*parts)


def question(d: ItemDetail) -> Content:
    """The question alone (the app's stylesheet marks it with a left bar, no prefix to wrap)."""
    return highlight(d.question, [], multiline=True)


def _explain(m: GoldMatch, cdqa: bool) -> str:
    """Why the score is what it is, in the metric's own units."""
    if cdqa:
        return f"{m.matched} of {m.gold_units} gold tokens found in the answer (recall)"
    if not m.matched:
        return "nothing in common"
    why = (f"{m.matched} {m.unit}: precision {m.matched}/{m.pred_units},"
           f" recall {m.matched}/{m.gold_units} → F1 {number(100 * (m.f1 or 0))}")
    if m.em == 0 and (m.f1 or 0) > 0.999 and m.em_pred is not None:
        # EM sees what F1 ignores (spaces, ASCII punctuation): show the two strings it compared
        why += f"; EM compared {m.em_pred!r} with {m.em_gold!r}"
    return why


def answers(d: ItemDetail, subsequence: bool, width: int, chosen: int | None = None) -> Content:
    """The prediction against every gold, each with its own scores and matched characters.

    `chosen`: index of the gold the stale actions act on (its label shows reversed). Stale golds
    are struck through, their proposed answer beside them and who flagged them, when and why
    below; flags whose gold text is gone from this release close the list as resolved."""
    p = d.prediction
    lines: list[Content] = []
    cdqa = uses_f1_recall(p.scorer if p is not None else d.scorer, d.family)
    official = "tokens F1-recall counted" if cdqa else "official F1 alignment"
    view = "character subsequence (not what the metric counts)" if subsequence else official
    if d.run is None:
        lines.append(Content.styled("No run chosen: golds only" + ("  (r shows a run's prediction)" if d.others else ""), MUTED))
    elif p is None:
        lines.append(Content.assemble(("Prediction ", LABEL), (clean(d.run), "bold"), ("  no prediction for this item", MUTED)))
    else:
        best = next((m for m in p.per_gold if m.best), None)
        ranges = _ranges(best, subsequence, pred=True) if best else []
        lines.append(Content.assemble(("Prediction ", LABEL), (clean(d.run), "bold"), ("  ", ""), *scores(p, p.refused)))
        lines.append(Content.assemble("  ", highlight(p.text, ranges, multiline=False)))
        if p.category is not None:
            lines.append(category_line(p, "  "))
        lines.extend(verdict_line(v, "  ") for v in p.verdicts)
    if d.unanswerable:
        lines.append(_no_answer_line(p))
        if not any(g.scored for g in d.golds):
            return Content("\n").join([*lines, *_resolved_lines(d)])
    legend = f"(★ best · highlighted: {view})" if p is not None else "(no prediction to compare with)"
    lines.append(Content.assemble(("Golds ", LABEL), (legend, MUTED)))
    notes = {m.note for m in (p.per_gold if p else []) if m.note}
    if subsequence and notes:
        lines.append(Content.styled("  " + "; ".join(sorted(notes)), MUTED))
    matches = {m.gold_idx: m for m in p.per_gold} if p else {}
    short = p is not None and cell_len(p.text) <= max(20, width - 16) and "\n" not in p.text
    open_flags = {f.gold_text: f for f in d.flags if f.status == "open"}
    for group in group_golds(d.golds):
        g = group[0]
        m = next((matches[x.idx] for x in group if x.idx in matches and matches[x.idx].best), matches.get(g.idx))
        label = "·".join(str(x.idx + 1) for x in group)
        is_chosen = chosen is not None and any(x.idx == chosen for x in group)
        flag = open_flags.get(g.text) if g.stale is not None else None
        lines.extend(_gold_lines(g, m, p, subsequence, short, cdqa, label, bool(d.context), is_chosen, flag))
    lines.extend(_resolved_lines(d))
    return Content("\n").join(lines)


def category_line(p: PredictionInfo, indent: str) -> Content:
    """`Why: boundary-long — contains the gold plus 4 characters after it` (exact: `right: …`)."""
    head = "Right: " if p.category == "exact" else "Why: "
    return Content.assemble((indent + head, MUTED), (p.category or "", "bold $accent"),
                            (" — " + clean(p.category_reason or ""), MUTED))


def verdict_line(v: VerdictInfo, indent: str) -> Content:
    """`Judge model_graded_fact: partial — its rationale` (imported; beside the official score)."""
    style = {"correct": "$success", "incorrect": "$error"}.get(v.verdict, "$warning")
    why = " ".join((v.rationale or "").split())
    return Content.assemble((indent + "Judge ", MUTED), (clean(v.judge), "bold"), (": ", MUTED), (v.verdict, style),
                            (" — " + truncate(clean(why), 200) if why else "", MUTED))


def _no_answer_line(p: PredictionInfo | None) -> Content:
    """An unanswerable question: say so, whether the model abstained, and its no-answer score."""
    parts: list[tuple[str, str] | str] = [("No answer expected", "bold $warning"),
                                          (" (unanswerable: only an empty answer is right)", MUTED)]
    if p is not None:
        parts.append(("  · the model abstained", "$success") if p.abstained else ("  · the model answered", "$error"))
        if p.no_answer_probability is not None:
            parts.append((f"  · no-answer score {p.no_answer_probability:g}", MUTED))
    return Content.assemble(*parts)


def show_ts(ts: str | None) -> str:
    """A journal time as stored (UTC), to the minute: `2024-05-01 10:00Z` (no clock conversion)."""
    if not ts:
        return ""
    return ts[:16].replace("T", " ") + ("Z" if ts.endswith("Z") else "")


def _flag_note(author: str, ts: str, reason: str | None, proposed: str | None, evidence: str | None,
               head: str = "    ⚑ stale", show_proposed: bool = False) -> Content:
    """`⚑ stale — alice 2024-05-01 10:00Z: reason → proposal  evidence`."""
    note: list[tuple[str, str] | str] = [(head, "bold $warning"), (f" — {clean(author)} {show_ts(ts)}", MUTED)]
    if reason:
        note += [": ", (clean(reason), "")]
    if show_proposed and proposed:
        note += [("  → ", MUTED), (clean(proposed), "bold")]
    if evidence:
        note += [("  ", ""), (clean(evidence), "underline")]
    return Content.assemble(*note)


def _resolved_lines(d: ItemDetail) -> list[Content]:
    """Flags whose gold text this release no longer scores: the dataset moved on (resolved)."""
    out: list[Content] = []
    for f in d.flags:
        if f.status == "open":
            continue
        superseded = any(g.text == f.gold_text and g.superseded for g in d.golds)
        why = "superseded by the release's rewrite" if superseded else "gold text gone from this release"
        out.append(Content.assemble(("  ⚑ resolved ", "bold $success"), (clean(f.gold_text), "strike"),
                                    (f"  ({why})", MUTED)))
        out.append(_flag_note(f.author, f.ts, f.reason, f.proposed, f.evidence, head="      flagged", show_proposed=True))
    return out


def group_golds(golds: Sequence[GoldInfo]) -> list[list[GoldInfo]]:
    """Identical golds (CMRC dev often repeats an answer) shown once, labelled `1·2`."""
    groups: dict[tuple[str, bool, int], list[GoldInfo]] = {}
    for g in golds:  # flags are keyed by gold text: identical golds share theirs
        groups.setdefault((g.text, g.superseded, g.stale is not None), []).append(g)
    return list(groups.values())


def _ranges(m: GoldMatch, subsequence: bool, *, pred: bool) -> list[Range]:
    if subsequence:
        return m.pred_subseq if pred else m.gold_subseq
    return m.pred_ranges if pred else m.gold_ranges


def _gold_lines(
    g: GoldInfo, m: GoldMatch | None, p: PredictionInfo | None, subsequence: bool, short: bool, cdqa: bool,
    label: str, has_passage: bool, chosen: bool = False, flag: Flag | None = None,
) -> list[Content]:
    marker = ("★ ", "bold $accent") if m is not None and m.best else ("  ", "")
    text_style = STALE if (g.superseded or g.stale) else ""
    gold_text = highlight(g.text, _ranges(m, subsequence, pred=False) if m else [], rest=text_style)
    tag = (label, "reverse bold $accent") if chosen else (label, MUTED)
    head: list[Content | tuple[str, str] | str] = [marker, tag, " ", gold_text, "  "]
    proposals = [(x.author, x.ts, x.reason, x.proposed, x.evidence) for x in flag.proposals] if flag else []
    if g.stale is not None and not proposals:
        s = g.stale
        proposals = [(s.author, s.ts, s.reason, s.proposed, s.evidence)]
    shown = [x[3] for x in proposals if x[3]]
    if shown:  # the proposed answer right beside the struck-through one
        head += [("→ ", MUTED), (clean(" | ".join(dict.fromkeys(shown))), "bold"), "  "]
    if m is not None and p is not None and not p.refused:
        head += scores(m)
    if g.superseded:
        head.append(("superseded (not scored)  ", "italic $warning"))
    if g.span is None and has_passage:
        head.append(("not found in the passage", MUTED))
    out = [Content.assemble(*head)]
    several = len(proposals) > 1
    for author, ts, reason, proposed, evidence in proposals:
        head_text = "    ⚑ stale" if not several else "    ⚑ proposal"
        out.append(_flag_note(author, ts, reason, proposed, evidence, head=head_text, show_proposed=several))
    if several and len(set(shown)) > 1:
        out.append(Content.styled("      conflicting proposals: both kept for the next release to decide", "italic $warning"))
    if m is not None and p is not None and not p.refused:
        if short:
            out.append(Content.assemble(("    pred ", MUTED), highlight(p.text, _ranges(m, subsequence, pred=True), rest=MUTED)))
        if m.best and not subsequence:
            out.append(Content.styled("    " + clean(_explain(m, cdqa)), MUTED))
    return out


NO_LINE_START = frozenset("，。、：；！？）」』》〉】〕”’…—·,.:;!?)]}%")
"""Punctuation a line must not start with (Chinese typesetting's 避头点): the character before
it moves down to the new line instead."""


def fold_offsets(text: str, width: int) -> list[int]:
    """Where to break `text` so no line passes `width` cells: between any two CJK characters
    (Chinese has no spaces to wrap at), at a space or a script change inside Latin text; never
    before a comma, full stop or closing bracket (`NO_LINE_START`)."""
    cuts: list[int] = []
    used = 0
    start = 0  # where the current line starts
    opp = -1  # last place a break may go (before that index)
    for i, ch in enumerate(text):
        if ch == "\n":
            used, start, opp = 0, i + 1, -1
            continue
        if i > start and (not ch.isascii() or not text[i - 1].isascii() or text[i - 1] == " "):
            opp = i
        w = cell_len(ch)
        if used + w > width and i > start:
            mid_word = ch.isascii() and ch != " " and text[i - 1].isascii() and text[i - 1] != " "
            at = opp if mid_word and opp > start and i - opp < 20 else i
            back = at
            while back - 1 > start and at - back < 3 and text[back] in NO_LINE_START:
                back -= 1
            if text[back] not in NO_LINE_START and cell_len(text[back:i]) + w <= width:
                at = back  # the character before the mark goes down with it
            cuts.append(at)
            start, used, opp = at, cell_len(text[at:i]), -1
        used += w
    return cuts


def fold(content: Content, width: int) -> Content:
    """`content` with line breaks inserted (styles kept) so Textual never moves a whole CJK run."""
    if width < 8:
        return content
    cuts = fold_offsets(content.plain, width)
    return Content("\n").join(content.divide(cuts)) if cuts else content


def context(d: ItemDetail, width: int = 0) -> Content:
    """The passage with every gold span and the predicted span in different styles."""
    if not d.context:
        return Content.styled("(no passage)", MUTED)
    text = highlight(d.context, [], multiline=True)
    for g in d.golds:
        if g.span and g.span[1] > g.span[0]:
            text = text.stylize(STALE if g.stale or g.superseded else GOLD_SPAN, g.span[0], g.span[1])
    p = d.prediction
    if p is not None and p.context_span:
        text = text.stylize(PRED_SPAN, *p.context_span)
    legend = Content.assemble(("Passage ", LABEL), ("gold", GOLD_SPAN), ("  ", ""), ("prediction", PRED_SPAN),
                              ("  ", ""), *( [(clean(d.title or ""), MUTED)] if d.title else []))
    missing = "" if p is None or p.context_span or not p.text.strip() else "  (prediction not found in the passage)"
    return Content.assemble(legend, (missing, "italic $warning"), "\n", fold(text, width) if width else text)


def others(d: ItemDetail, width: int) -> Content:
    """Every other run's prediction for this item, with its scores."""
    lines: list[Content] = [Content.styled("Other runs", LABEL)]
    if not d.others and not d.missing_runs:
        lines.append(Content.styled("  (no other run on this dataset)", MUTED))
    name_w = min(24, max((cell_len(clean(o.run)) for o in d.others), default=8))
    for o in d.others:
        best = next((m for m in o.per_gold if m.best), None)
        shown = Content.assemble(*scores(o, o.refused))
        head = Content.assemble(
            ("  ", ""), (_pad(truncate(clean(o.run), name_w), name_w), "bold"), "  ",
            shown.pad_right(max(0, 18 - shown.cell_length)),
        )
        text = highlight(o.text, best.pred_ranges if best else []) if o.text.strip() else Content.styled("(empty)", MUTED)
        if head.cell_length + text.cell_length <= width:
            lines.append(head + text)
        else:  # long answers (LLMs) get their own, wrapped, lines: never cut what a run said
            lines += [head, Content.assemble("    ", text)]
        if o.category is not None and o.category != "exact":
            lines.append(category_line(o, "    "))
    for name in d.missing_runs:
        if name != d.run:
            lines.append(Content.assemble(("  ", ""), (clean(name), "bold"), ("  no prediction (scores 0)", MUTED)))
    return Content("\n").join(lines)


def meta(d: ItemDetail, width: int = 0) -> Content:
    """Tags, evidence, where the item and the prediction come from, n-best, raw response."""
    lines: list[Content] = [Content.styled("Details", LABEL)]
    keys = ["item", "features", "run file", "scorer", *map(str, d.meta), *(map(str, d.prediction.meta) if d.prediction else [])]
    label_w = min(22, max(cell_len(k) for k in keys) + 2)

    def row(label: str, value: object) -> None:
        lines.append(Content.assemble(("  " + _pad(truncate(label, label_w - 1), label_w), MUTED), clean(str(value))))

    where = d.source_path or "?"
    row("item", f"{d.key} · {where}" + (f":{d.source_line}" if d.source_line else ""))
    if d.features:
        row("features", " · ".join(f"{dimension_name(k)} {v}" for k, v in d.features.items()))
    if d.is_impossible:
        row("impossible", "yes (no answer in the passage)")
    for k in sorted(d.meta):
        v = d.meta[k]
        if v not in (None, "", [], {}):
            row(str(k), v if not isinstance(v, (list, dict)) else _short(v))
    p = d.prediction
    if p is not None:
        row("run file", (p.run_path or "?") + (f":{p.source_line}" if p.source_line else ""))
        if p.model:
            row("model", p.model)
        if p.scorer:
            row("scorer", p.scorer)
        for k in sorted(p.meta):
            row(str(k), _short(p.meta[k]))
        if p.candidates:
            lines.append(Content.styled("  n-best", MUTED))
            for c in p.candidates[:10]:
                prob = c.get("probability")
                lines.append(Content.assemble(
                    ("    ", ""), (f"{number(prob, 3)} " if isinstance(prob, (int, float)) else "      ", MUTED),
                    clean(str(c.get("text", ""))),
                ))
        if p.samples:
            lines += samples(p)
        if p.raw and p.raw != p.text:
            lines.append(Content.styled("  raw response", MUTED))
            raw = highlight(p.raw, [], multiline=True)
            raw = fold(raw, width - 4) if width else raw
            lines.append(Content("\n").join(Content.assemble("    ", line) for line in raw.split("\n")))
    return Content("\n").join(lines)


def samples(p: PredictionInfo) -> list[Content]:
    """Every sample of the run, grouped by equivalent answer with its count; each with its scores."""
    total = sum(g.count for g in p.samples)
    lines = [Content.styled(f"  samples: {total}, {len(p.samples)} distinct answer{'s' if len(p.samples) != 1 else ''}",
                            MUTED)]
    for g in p.samples:
        lines.append(Content.assemble(("    ", ""), (f"×{g.count} ", "bold"), clean(g.answer)))
        for r in g.rows:
            shown = Content.assemble(*scores(r, r.refused))
            lines.append(Content.assemble((f"      #{r.sample} ", MUTED), shown, "  ", clean(r.text)))
    return lines


def _pad(s: str, width: int) -> str:
    """Pad to `width` terminal cells (CJK counts two)."""
    return s + " " * max(0, width - cell_len(s))


def _short(v: object, limit: int = 200) -> str:
    s = v if isinstance(v, str) else repr(v)
    return s if len(s) <= limit else s[: limit - 1] + "…"
