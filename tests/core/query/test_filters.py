

def test_a_slice_saved_with_question_words_selects_their_question_types() -> None:
    from qa_inspect.core.query import Filter

    old = Filter.from_dict({"run": "r", "facets": [["qword", "谁"], ["qword", "多少"], ["qword", "几"], ["gold_len", "1–2"]]})
    assert old.facets == (("qword", "who"), ("qword", "how-many"), ("gold_len", "1–2"))
    assert Filter.from_dict(old.to_dict()) == old
