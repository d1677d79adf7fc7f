"""The per-text caches of scoring and of the judgement of answers, emptied together.

Scoring keeps what it computed per distinct text (segments, CDQA tokens, normal forms, an item's
golds as compared, a passage's sentences): every answer to an item meets the same golds and
passage, and a load scores each distinct answer once. Scores never depend on these caches. After
a big load they hold about a million and a half objects that nothing asks for again: the app
that opens after a load would keep them, and the interpreter's last cycle collection walks them
at exit (0.4 to 0.6 s after a 100-run load, against 0.12 s to empty them).
"""

from __future__ import annotations

from .categories import cache_clear as _categories
from .cdqa import cache_clear as _cdqa
from .equivalence import cache_clear as _equivalence
from .question_features import cache_clear as _question_features
from .segment import cache_clear as _segment
from .sentences import cache_clear as _sentences
from .span_categories import cache_clear as _span_categories
from .squad import cache_clear as _squad
from .textnorm import cache_clear as _textnorm

__all__ = ["clear_score_caches"]


def clear_score_caches() -> None:
    """Empty every per-text cache of the scorers and the judgement (`score` and a load end with it)."""
    for clear in (_segment, _cdqa, _squad, _textnorm, _equivalence, _categories, _span_categories, _sentences,
                  _question_features):
        clear()
