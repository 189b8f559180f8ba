"""Lesson 03 walked again (issue 32, walk 21): MAF is named once where it first appears, with the edition the course
runs on (walk 23: the C# one waits for the hood), and the hood speaks of "MAF for .NET (C#)", so the two no longer
read as a contradiction."""

from __future__ import annotations

from support.lesson_cells import stored_lesson

# walk 23: the C# edition is named under the hood only (MAF for .NET (C#)), so the first naming says the one the
# course runs on
FIRST_NAMED = "MAF is the Microsoft Agent Framework. The course runs on its Python edition"  # walk 23: its own sentence


def _markdown() -> list[str]:
    return ["".join(c["source"]) for c in stored_lesson("03")["cells"] if c["cell_type"] == "markdown"]


def test_maf_is_spelled_out_where_it_is_first_named_and_only_there() -> None:
    texts = [" ".join(text.split()) for text in _markdown()]
    first = next(text for text in texts if "MAF" in text).replace("*MAF*", "MAF")
    assert first[first.index("MAF") :].startswith(FIRST_NAMED)
    assert sum(text.count("Microsoft Agent Framework") for text in texts) == 1
    assert not any("the Python library" in text for text in texts)


def test_the_hood_names_the_other_edition_as_maf_for_dotnet() -> None:
    texts = _markdown()
    hood = "\n".join(texts[next(i for i, t in enumerate(texts) if t.startswith("## Under the hood")) :])
    flat = " ".join(hood.split())
    assert "MAF for .NET (C#)" in flat
    assert "MAF's .NET library" not in flat and "MAF .NET" not in flat
