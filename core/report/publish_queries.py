"""The canned queries a reviewer opens in a published copy (Datasette), written from the rules the
tool itself uses: what an error is (`ERROR_SQL`), what answering is (`answered_sql`), which golds
are stale now (`STALE_GOLDS_SQL`), which scorers report F1-recall, the slice dimensions.

Each query is plain SQL with named parameters (`:run`, `:run_a`, `:run_b`), so it runs the same
in Datasette, in `sqlite3` and from Python (`conn.execute(q.sql, {"run": …})`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from qa_inspect.core.metrics import SCORERS, uses_f1_recall
from qa_inspect.core.query import DIMENSIONS, ERROR_SQL, answered_sql
from qa_inspect.core.store import STALE_GOLDS_SQL

__all__ = ["CANNED_QUERIES", "CannedQuery"]


@dataclass(frozen=True, slots=True)
class CannedQuery:
    """A named query: its title and description (what the reviewer reads) and SQL."""

    title: str
    description: str
    sql: str

    @property
    def params(self) -> list[str]:
        """The named parameters, in order of first use (Datasette asks for them in a form)."""
        return list(dict.fromkeys(re.findall(r"(?<!:):([a-z_]+)", self.sql)))


_EFFECTIVE = "NOT EXISTS (SELECT 1 FROM annotations u WHERE u.action = 'undo' AND u.ref = a.id)"
_GOLDS = "(SELECT group_concat(g.text, ' | ') FROM golds g WHERE g.item_id = i.id AND g.superseded = 0)"
_F1_RECALL_SCORERS = ", ".join(f"'{s}'" for s in SCORERS if uses_f1_recall(s))


def _error_of(alias: str) -> str:
    """`ERROR_SQL` (written over alias `p`) over another prediction alias: one rule, both runs."""
    return re.sub(r"\bp\.", f"{alias}.", ERROR_SQL)


A_RIGHT_B_WRONG = f"""
SELECT d.name AS dataset, i.key AS item_key, i.question AS question, {_GOLDS} AS golds,
       pa.text AS answer_a, pb.text AS answer_b,
       COALESCE(pa.f1, pa.f1_recall) AS score_a, COALESCE(pb.f1, pb.f1_recall) AS score_b
FROM runs ra JOIN runs rb ON rb.dataset_id = ra.dataset_id
JOIN datasets d ON d.id = ra.dataset_id
JOIN items i ON i.dataset_id = ra.dataset_id
LEFT JOIN predictions pa ON pa.run_id = ra.id AND pa.item_id = i.id
LEFT JOIN predictions pb ON pb.run_id = rb.id AND pb.item_id = i.id
WHERE ra.name = :run_a AND rb.name = :run_b
  AND NOT ({_error_of("pa")}) AND ({_error_of("pb")})
ORDER BY COALESCE(pa.f1, pa.f1_recall, 0) - COALESCE(pb.f1, pb.f1_recall, 0) DESC, i.key
"""

STALE_WITH_PROPOSALS = f"""
SELECT d.name AS dataset, i.key AS item_key, i.question AS question, g.text AS gold,
       s.proposed AS proposed, s.evidence AS evidence, s.reason AS reason, s.author AS author, s.ts AS flagged_at
FROM ({STALE_GOLDS_SQL}) s
JOIN golds g ON g.id = s.gold_id
JOIN items i ON i.id = s.item_id
JOIN datasets d ON d.id = i.dataset_id
ORDER BY s.proposed IS NULL, s.evidence IS NULL, d.name, i.key, g.idx
"""


def _slice_block(label: str, column: str | None) -> str:
    """One block of the per-slice metrics: the overall row, or one row per value of a dimension
    (a dimension the dataset leaves unset on every item is no slice, as in `qa-inspect report`)."""
    cdqa = f"MAX(scorer) IN ({_F1_RECALL_SCORERS})"
    value = "'all'" if column is None else f"COALESCE({column}, '—')"
    group = "" if column is None else (
        f" GROUP BY {column} HAVING NOT ({column} IS NULL AND COUNT(*) = (SELECT COUNT(*) FROM rows))")
    return (
        f"SELECT '{label}' AS slice, {value} AS value, COUNT(*) AS items, SUM(predicted) AS predicted,"
        f" CASE WHEN {cdqa} THEN NULL ELSE ROUND(100.0 * AVG(COALESCE(em, 0)), 2) END AS em,"
        f" CASE WHEN {cdqa} THEN NULL ELSE ROUND(100.0 * AVG(COALESCE(f1, 0)), 2) END AS f1,"
        f" CASE WHEN {cdqa} THEN SUM(answered) END AS answered,"
        f" CASE WHEN {cdqa} THEN ROUND(100.0 * SUM(CASE WHEN answered THEN COALESCE(f1_recall, 0) END)"
        f" / NULLIF(SUM(answered), 0), 2) END AS f1_recall,"
        f" CASE WHEN {cdqa} THEN ROUND(100.0 * SUM(answered) / NULLIF(SUM(predicted), 0), 2) END AS answer_rate,"
        f" SUM(error) AS errors FROM rows{group}"
    )


PER_SLICE_METRICS = f"""
WITH rows AS (
    SELECT {", ".join(f"i.{d} AS {d}" for d in DIMENSIONS)}, p.id IS NOT NULL AS predicted, p.em AS em, p.f1 AS f1,
           p.f1_recall AS f1_recall, p.id IS NOT NULL AND {answered_sql("p")} AS answered, {ERROR_SQL} AS error,
           COALESCE(r.scorer, d.scorer) AS scorer
    FROM runs r JOIN datasets d ON d.id = r.dataset_id
    JOIN items i ON i.dataset_id = r.dataset_id
    LEFT JOIN predictions p ON p.run_id = r.id AND p.item_id = i.id
    WHERE r.name = :run
)
{(chr(10) + "UNION ALL" + chr(10)).join([_slice_block("overall", None), *(_slice_block(d, d) for d in DIMENSIONS)])}
"""

_LATEST_PER_AUTHOR = f"""
SELECT * FROM (
    SELECT a.*, ROW_NUMBER() OVER (PARTITION BY {{partition}}, a.author ORDER BY a.ts DESC, a.id DESC) AS qa_rank
    FROM annotations a WHERE {{where}} AND {_EFFECTIVE}
) WHERE qa_rank = 1
"""

DISAGREEMENTS = f"""
WITH gold_says AS ({_LATEST_PER_AUTHOR.format(
    partition="a.dataset, a.item_key, a.gold_text",
    where="a.label IS NULL AND a.action IN ('mark', 'unmark', 'verify')")}),
label_says AS ({_LATEST_PER_AUTHOR.format(
    partition="a.dataset, a.run, a.item_key, a.label",
    where="a.label IS NOT NULL AND a.action IN ('label', 'unlabel')")}),
label_sets AS (
    SELECT dataset, run, item_key, author,
           COALESCE(group_concat(CASE WHEN action = 'label' THEN label END, ', '), '(none)') AS labels
    FROM (SELECT * FROM label_says ORDER BY label) GROUP BY dataset, run, item_key, author
),
judged AS (
    SELECT 'stale flag' AS kind, dataset, NULL AS run, item_key, gold_text AS about,
           group_concat(author || ': ' || CASE action WHEN 'mark' THEN 'stale' ELSE 'still correct' END, '; ')
               AS judgements,
           COUNT(DISTINCT action = 'mark') AS views, COUNT(*) AS authors
    FROM (SELECT * FROM gold_says ORDER BY author) GROUP BY dataset, item_key, gold_text
    UNION ALL
    SELECT 'error labels', dataset, run, item_key, NULL, group_concat(author || ': ' || labels, '; '),
           COUNT(DISTINCT labels), COUNT(*)
    FROM (SELECT * FROM label_sets ORDER BY author) GROUP BY dataset, run, item_key
)
SELECT j.kind, j.dataset, j.run, j.item_key, i.question AS question, j.about, j.judgements, j.authors
FROM judged j
LEFT JOIN datasets d ON d.name = j.dataset
LEFT JOIN items i ON i.dataset_id = d.id AND i.key = j.item_key
WHERE j.views > 1
ORDER BY j.dataset, j.item_key, j.kind, j.run
"""

CANNED_QUERIES: dict[str, CannedQuery] = {
    "a_right_b_wrong": CannedQuery(
        "A right, B wrong",
        "Items run A gets right and run B gets wrong (an error as the tool counts one: no prediction, "
        "EM 0, or for CDQA a refusal or F1-recall below 1), largest score drop first. Both runs must "
        "answer the same dataset.",
        A_RIGHT_B_WRONG),
    "stale_flags": CannedQuery(
        "Stale flags with proposals and evidence",
        "Every gold answer flagged stale now, with the answer proposed in its place, the evidence, the "
        "reason and who flagged it; flags with a proposal and evidence first.",
        STALE_WITH_PROPOSALS),
    "slice_metrics": CannedQuery(
        "Per-slice metrics of a run",
        "The run's official metrics overall and per slice (split, tag, answer type, answerable): EM/F1 "
        "over every item of the slice (a missing prediction counts 0), or for CDQA F1-recall over "
        "answered items and answer rate over the run's responses.",
        PER_SLICE_METRICS),
    "disagreements": CannedQuery(
        "Disagreements",
        "Where annotators' current judgements differ, from the journal: a gold one annotator flags "
        "stale and another says is still correct, and a (run, item) annotators gave different error labels.",
        DISAGREEMENTS),
}
"""The canned queries of a published copy, by URL name (`/qa/<name>`)."""
